/** The seed's SESSION_STATE_TITLE_PATTERN and label. */
export const DEFAULT_SESSION_TITLE = "[Automated] CleverAgents Build Session";
export const DEFAULT_SESSION_LABEL = "Type/Automation";
/** Largest checkpoint comment a save sends (CHECKPOST_MAX_CHECKPOINT_BYTES). */
export const DEFAULT_MAX_CHECKPOINT_BYTES = 64 * 1024;

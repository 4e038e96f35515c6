/** Opens the bot's section of the session issue body. */
export const DASHBOARD_START = "<!-- checkpost:dashboard:start -->";
/** Closes it. Everything outside a start…end pair belongs to people. */
export const DASHBOARD_END = "<!-- checkpost:dashboard:end -->";
/** Opens the machine-readable resume index (an HTML comment inside the section). */
export const RESUME_INDEX_OPEN = "<!-- checkpost:resume-index ";
export const RESUME_INDEX_CLOSE = " -->";
/** Prefix of the one line `dashboardChanged` ignores. */
export const UPDATED_LINE_PREFIX = "_Updated ";
/**
 * Opens the pointer a dashboard holds instead of a large resume index: which comment of the issue
 * holds the index, and the time a cold reader lists comments from (docs/dashboard.md).
 */
export const RESUME_INDEX_REF_OPEN = "<!-- checkpost:resume-index-ref ";
/** Opens the digest line the bot ends its section with (body-stamp.ts): a body any replica wrote, not a person's edit. */
export const BODY_STAMP_OPEN = "<!-- checkpost:body-sha256 ";

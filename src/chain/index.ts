export { adoptableSuccessor, hijackReason, followableSuccessor, followablePredecessor, successorNamed } from "./chain-rules.ts";
export type { ChainIssue, ChainComment } from "./chain-rules.ts";
export { findOpenHead, MAX_HOPS } from "./open-head.ts";
export type { OpenHead, ChainReader } from "./open-head.ts";
export { continuedFrom, continuedIn, continuesLine, continuedInComment } from "./chain-links.ts";

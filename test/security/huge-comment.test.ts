import { hugeCommentSuite } from "./huge-comment-suite.ts";

// Issue 9, attack 1 at 8 MiB (the size that overflowed octokit's parser on Node 20); 30 MiB runs in
// `npm run test:slow` (huge-comment-30mib.test.ts) and in `npm run reliability:trust`.
hugeCommentSuite(8);

import { hugeCommentSuite } from "./huge-comment-suite.ts";

// Issue 9, attack 1 at 30 MiB (slow: `npm run test:slow`).
hugeCommentSuite(30);

import { untrustedNamesSuite } from "./untrusted-names-suite.ts";

// Issue 9, attack 5 at 2,000 names; 20,000 run in `npm run test:slow` (untrusted-names-20k.test.ts)
// and in `npm run reliability:trust`, which also times the start-up.
untrustedNamesSuite(2_000);

import { untrustedNamesSuite } from "./untrusted-names-suite.ts";

// Issue 9, attack 5 at the size (slow: `npm run test:slow`).
untrustedNamesSuite(20_000);

/** One replica's hold on one session issue, as the store granted it. */
export interface Lease {
  issueKey: string;
  holder: string;
  /** Fencing token: grows at every change of holder, never reused. */
  token: number;
  /** By PostgreSQL's clock. */
  expiresAt: Date;
}

import type pg from "pg";

/**
 * What an operation runs its one statement on: the pool (a statement in its own transaction) or a client
 * inside a transaction (StoreConnection.tx). Both pg.Pool and pg.PoolClient fit.
 */
export interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

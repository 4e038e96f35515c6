import type { Queryable } from "./queryable.ts";

export async function deleteReplica(db: Queryable, replicaId: string): Promise<void> {
  await db.query("DELETE FROM checkpost_replicas WHERE replica_id = $1", [replicaId]);
}

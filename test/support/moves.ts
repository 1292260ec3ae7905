import { env } from "cloudflare:workers";
import { DIRECTORY_TTL_MS } from "../../src/tenancy/directory-cache";

/**
 * Moves a switched move's recorded switch back past the directory cache's bound, as if its
 * seconds had passed: its next step opens the old copy to its erasure. Answers whether a move waited.
 */
export async function passMoveFence(mindId: string): Promise<boolean> {
  const before = new Date(Date.now() - DIRECTORY_TTL_MS).toISOString();
  const { meta } = await env.DB.prepare("update mind_moves set switched_at = ?2 where mind_id = ?1 and state = 'switched' and switched_at > ?2")
    .bind(mindId, before)
    .run();
  return meta.changes > 0;
}

import { type Api, answered, dataOf } from "./call.js";
import { EdgemindError } from "./errors.js";
import type { ArchiveImport, ImportCounts } from "./types.js";

/** A mind's export and import (a human's token: they are the owner's). */
export function mindsResource(api: Api, defaultMind: string | undefined) {
  const mind = (id: string | undefined) => {
    const found = id ?? defaultMind;
    if (!found) throw new EdgemindError(400, "invalid_request", "name the mind: pass its id or give the client a mindId");
    return { path: { id: found } };
  };
  return {
    /** The mind as JSONL: memories with history, notes, cold memory with versions, chats, sessions, messages. */
    async export(mindId?: string): Promise<string> {
      const bytes = await dataOf(api.GET("/minds/{id}/export", { params: mind(mindId), parseAs: "arrayBuffer" }));
      return new TextDecoder().decode(bytes);
    },
    /**
     * Restores an export into an empty mind. A small archive is written before the answer
     * (`imported` per table); a large one is written in the background: follow `import` with getImport.
     */
    async import(archive: string, mindId?: string): Promise<{ import: ArchiveImport; imported: ImportCounts | null }> {
      const { data } = await answered(
        api.POST("/minds/{id}/import", {
          params: mind(mindId),
          body: archive,
          bodySerializer: (body: string) => body,
          headers: { "Content-Type": "application/x-ndjson" },
        }),
      );
      return { import: data.import, imported: "imported" in data ? data.imported : null };
    },
    /** Where an import written in the background stands. */
    getImport: (importId: string, mindId?: string) =>
      dataOf(api.GET("/minds/{id}/import/{importId}", { params: { path: { ...mind(mindId).path, importId } } })),
  };
}

import { type Api, answered, dataOf } from "./call.js";
import { EdgemindError } from "./errors.js";
import type { ArchiveImport, ImportCounts } from "./types.js";

/** What an import takes: edgemind's own archive (JSONL), a mem0 export or a Letta Agent File (JSON). */
export type ImportFormat = "archive" | "mem0" | "letta";

/** The media type that names each format. */
const MEDIA_TYPES: Record<ImportFormat, string> = {
  archive: "application/x-ndjson",
  mem0: "application/vnd.mem0+json",
  letta: "application/vnd.letta.agent-file+json",
};

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
     * Restores an export (or a mem0 export, or a Letta Agent File: `format`) into an empty mind. A
     * small file is written before the answer (`imported` per table); a large one is written in
     * the background: follow `import` with getImport.
     */
    async import(file: string, mindId?: string, format: ImportFormat = "archive"): Promise<{ import: ArchiveImport; imported: ImportCounts | null }> {
      const { data } = await answered(
        api.POST("/minds/{id}/import", {
          params: mind(mindId),
          body: file,
          // The file goes as it is, whichever format it is in.
          bodySerializer: (body: unknown) => String(body),
          headers: { "Content-Type": MEDIA_TYPES[format] },
        }),
      );
      return { import: data.import, imported: "imported" in data ? data.imported : null };
    },
    /** Where an import written in the background stands. */
    getImport: (importId: string, mindId?: string) =>
      dataOf(api.GET("/minds/{id}/import/{importId}", { params: { path: { ...mind(mindId).path, importId } } })),
  };
}

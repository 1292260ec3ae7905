// The database schema, in two parts: the directory's tables (schema/directory.ts) and a shard's
// (schema/shard.ts). test/db/schema.test.ts checks the split against the migrations and the
// tables a move copies.

export * from "./schema/directory";
export * from "./schema/shard";

// Types of scripts/local-d1.mjs for the TypeScript that imports it (test/node).
export interface LocalDatabase {
  binding: string;
  id: string;
  migrationsDir: string;
  table: string;
}
export function localDatabases(configPath: string): Promise<LocalDatabase[]>;
export function migrationNames(folder: string): string[];
export function applyLocalMigrations(configPath: string, persistTo?: string): Promise<boolean>;

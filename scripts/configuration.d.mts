// Types of scripts/configuration.mjs for the TypeScript that imports it (test/node).
export interface SettingProblem {
  setting: string;
  message: string;
}
export function declaredSettings(config?: string): Record<string, unknown>;
export function localProblems(vars: Record<string, string>, config?: string): SettingProblem[];
export function deployProblems(config?: string): SettingProblem[];
export function problemLines(problems: SettingProblem[]): string[];

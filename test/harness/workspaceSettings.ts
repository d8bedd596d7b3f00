import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Merges `overrides` into the workspace's .vscode/settings.json, as a user editing it would;
 * returns what puts the file back as it was.
 */
export function editWorkspaceSettings(workspace: string, overrides: Record<string, unknown>): () => void {
  const file = path.join(workspace, '.vscode', 'settings.json');
  const original = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(original), ...overrides }, null, 2));
  return () => fs.writeFileSync(file, original);
}

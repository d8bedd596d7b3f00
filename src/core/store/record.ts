import { randomUUID } from 'node:crypto';

/** What every record of an append-only store starts with: its schema version, a fresh id, the time. */
export function recordStamp(schemaVersion: number): { schemaVersion: number; id: string; createdAt: string } {
  return { schemaVersion, id: randomUUID(), createdAt: new Date().toISOString() };
}

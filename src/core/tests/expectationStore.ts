/**
 * A person's verdicts on unconfirmed expectations (tests the user's function fails without strong
 * evidence): "accept" says the test is right and the function wrong, "reject" that the test is
 * wrong. They are test-writer training data, kept like step labels: appended one whole line at a
 * time under `.stepwise/test-judgements.jsonl`, with the label store's lock and write-error rules,
 * never rewritten; the latest judgement of a test wins when read.
 */
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { appendDurably } from '../store/durableAppend';
import { FileLock } from '../store/lock';
import { recordStamp } from '../store/record';
import { openForRead, readStoreFile } from '../store/storeFile';
import { specOf } from './functionPrompt';

export const JUDGEMENT_SCHEMA_VERSION = 1;

export const TestJudgementSchema = z.object({
  schemaVersion: z.literal(JUDGEMENT_SCHEMA_VERSION),
  id: z.string(),
  createdAt: z.string(),
  judgement: z.enum(['accept', 'reject']),
  function: z.object({
    name: z.string(),
    language: z.string(),
    signature: z.string(),
    docstring: z.string().optional(),
  }),
  file: z.string().optional(),
  /** The test as written (one assertion line, or a whole test function) and its stage. */
  test: z.object({ name: z.string(), source: z.string(), stage: z.number().int() }),
  /** What the user's function did, and the evidence the verdict was shown with. */
  onUser: z.string(),
  userOutput: z.string().optional(),
  confidence: z.number().optional(),
  evidence: z.string().optional(),
  model: z.string().optional(),
});
export type TestJudgement = z.infer<typeof TestJudgementSchema>;
export type NewJudgement = Omit<TestJudgement, 'schemaVersion' | 'id' | 'createdAt'>;

export class TestJudgementStore {
  readonly file: string;
  private readonly lock: FileLock;

  /** `dir` is the workspace's `.stepwise` folder. */
  constructor(readonly dir: string) {
    this.file = path.join(dir, 'test-judgements.jsonl');
    this.lock = new FileLock(`${this.file}.lock`, this.file);
  }

  async append(judgement: NewJudgement): Promise<TestJudgement> {
    const record = TestJudgementSchema.parse({ ...recordStamp(JUDGEMENT_SCHEMA_VERSION), ...judgement });
    const payload = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
    await fsp.mkdir(this.dir, { recursive: true });
    await this.lock.hold(async () => {
      // A line cut short by an earlier crash must not swallow this one: start on a fresh line.
      const head = (await endsMidLine(this.file)) ? Buffer.from('\n') : Buffer.alloc(0);
      // Written as the label store writes: never through a link, never blocking on a FIFO, synced.
      await appendDurably(this.file, Buffer.concat([head, payload]));
    });
    return record;
  }

  /** Valid records in file order; lines that are not records are counted, never thrown on. */
  async read(): Promise<{ records: TestJudgement[]; corrupt: number }> {
    const content = await readStoreFile(this.file);
    if (!content) return { records: [], corrupt: 0 };
    const text = content.toString('utf8');
    const records: TestJudgement[] = [];
    let corrupt = 0;
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const parsed = TestJudgementSchema.safeParse(JSON.parse(line));
        if (parsed.success) records.push(parsed.data);
        else corrupt++;
      } catch {
        corrupt++;
      }
    }
    return { records, corrupt };
  }
}

/** Whether the store's last line lacks its newline (a write cut short); false when there is none. */
async function endsMidLine(file: string): Promise<boolean> {
  const handle = await openForRead(file);
  if (!handle) return false;
  try {
    const { size } = await handle.stat();
    if (size === 0) return false;
    const b = Buffer.alloc(1);
    await handle.read(b, 0, 1, size - 1);
    return b[0] !== 0x0a;
  } finally {
    await handle.close();
  }
}

/** The latest judgement of each test (by function, file and test source): a person may change their mind. */
export function currentJudgements(records: readonly TestJudgement[]): TestJudgement[] {
  const latest = new Map<string, TestJudgement>();
  for (const r of records) latest.set(JSON.stringify([r.file ?? '', r.function.name, r.test.source]), r);
  return [...latest.values()];
}

/**
 * Test-writer training rows in the unpaired preference format (TRL's KTO dataset format):
 * `{"prompt", "completion", "label"}` with `label` true for an accepted test and false for a
 * rejected one, plus `function_name`, `spec` and `confidence` for filtering. See docs/test-verdicts.md.
 */
export function judgementTrainingRows(records: readonly TestJudgement[]): Record<string, unknown>[] {
  return currentJudgements(records).map((r) => {
    const spec = specOf({ signature: r.function.signature, docstring: r.function.docstring });
    return {
      prompt: `Write one test of the ${r.function.language} function \`${r.function.name}\`.\n\nSpecification:\n${spec}`,
      completion: r.test.source,
      label: r.judgement === 'accept',
      function_name: r.function.name,
      spec,
      ...(r.confidence === undefined ? {} : { confidence: r.confidence }),
    };
  });
}

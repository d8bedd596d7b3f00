/**
 * Hostile cases, issue 16: the label store and the smaller CLI cases. Each runs the real CLI in its
 * own process (bounded in time) against a real store, server or file.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OpenAIBackend } from '../../../src/core/model/openai';
import { startHttpServer, startSse } from '../../servers/http-server';
import { llamaServerUnavailable, startLlamaServer, type LlamaServer } from '../../servers/llama-server';
import { CLI, cli, scratch } from './hostileHelpers';

function record(step: number, solution = 's1') {
  return JSON.stringify({
    schemaVersion: 1,
    id: `id-${solution}-${step}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    problemId: 'p1',
    problemText: 'Show that 1 + 1 = 2.',
    solutionId: solution,
    stepIndex: step,
    stepHash: '0123456789abcdef',
    stepText: `step ${step}`,
    rating: 1,
    source: 'cli',
  });
}

const ADD = ['--problem', 'p1', '--step-text', 'Let n = 2k.', '--rating', '1', '--solution-id', 's9'];

for (const [what, content] of [
  ['empty', ''],
  ['garbled', 'not a pid\u0000'],
] as const) {
  test(`label store: an ${what} lock file (a writer that ran out of disk) is stale at once`, async () => {
    const s = scratch();
    try {
      fs.writeFileSync(path.join(s.dir, 'labels.jsonl.lock'), content);
      const r = await cli(['labels', 'add', '--store', s.dir, ...ADD], { limitMs: 25_000 });
      assert.equal(r.killed, undefined, 'labels add waited on the dead lock');
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.ms < 10_000, `labels add took ${r.ms} ms`);
      assert.doesNotMatch(r.stderr, /NaN/);
      assert.equal(fs.existsSync(path.join(s.dir, 'labels.jsonl.lock')), false);
    } finally {
      s.cleanup();
    }
  });
}

test('label store: a partial last line (a write cut short by a full disk) is quarantined on the next open', async () => {
  const s = scratch();
  try {
    const store = path.join(s.dir, 'labels.jsonl');
    fs.writeFileSync(store, `${record(0)}\n${record(1)}\n${record(2).slice(0, 70)}`);
    const check = await cli(['labels', 'check', '--store', s.dir], { limitMs: 25_000 });
    assert.equal(check.code, 0, `check still fails: ${check.stdout}${check.stderr}`);
    assert.match(
      check.stderr,
      /cut short.*moved to labels\.jsonl\.quarantine.*every label before it is intact/,
    );
    const counts = JSON.parse(check.stdout);
    assert.equal(counts.valid, 2);
    assert.equal(counts.corrupt, 0);
    assert.equal(fs.readFileSync(store, 'utf8'), `${record(0)}\n${record(1)}\n`);
    assert.match(fs.readFileSync(`${store}.quarantine`, 'utf8'), /"bytes":70/);
    // Said once: the next open finds a clean store.
    const again = await cli(['labels', 'check', '--store', s.dir], { limitMs: 25_000 });
    assert.equal(again.stderr, '');
  } finally {
    s.cleanup();
  }
});

test('labels export says which labels it left out after a gap in step indexes, and why', async () => {
  const s = scratch();
  try {
    const lines = [
      record(0, 'gap'),
      record(1, 'gap'),
      record(3, 'gap'),
      record(1, 'nozero'),
      record(2, 'nozero'),
    ];
    fs.writeFileSync(path.join(s.dir, 'labels.jsonl'), lines.join('\n') + '\n');
    const r = await cli(['labels', 'export', '--store', s.dir, '--format', 'trl'], { limitMs: 25_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').length, 1, 'the sound solution is exported');
    assert.match(
      r.stderr,
      /solution gap .*exported steps 0-1; no label on step 2, so the labels of step 3 after the gap are left out/,
    );
    assert.match(
      r.stderr,
      /solution nozero .*no label on step 0, so none of its 2 labelled steps \(1, 2\) can be exported/,
    );
    assert.match(r.stderr, /1 solution\(s\) exported; 3 label\(s\) of 2 solution\(s\) left out/);
  } finally {
    s.cleanup();
  }
});

test('a huge --step-index is a one-line message, not a schema dump', async () => {
  const s = scratch();
  try {
    const r = await cli(
      ['labels', 'add', '--store', s.dir, ...ADD, '--step-index', '99999999999999999999999'],
      {
        limitMs: 25_000,
      },
    );
    assert.equal(r.code, 2);
    assert.match(
      r.stderr.split('\n')[0],
      /^stepwise labels: --step-index must be a whole number from 0 to \d+, not "9+"\.$/,
    );
    assert.match(r.stderr.split('\n')[1], /^Usage: /);
    assert.doesNotMatch(r.stderr, /"code"|ZodError|at .*\.js:\d+/);
  } finally {
    s.cleanup();
  }
});

test('labels export | head ends quietly, without an EPIPE stack', () => {
  const s = scratch();
  try {
    const lines = Array.from({ length: 3000 }, (_, i) => record(0, `s${i}`));
    fs.writeFileSync(path.join(s.dir, 'labels.jsonl'), lines.join('\n') + '\n');
    const r = spawnSync(
      '/bin/sh',
      [
        '-c',
        `"${process.execPath}" "${CLI}" labels export --store "${s.dir}" --format trl | head -1 >/dev/null`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(r.error, undefined);
    assert.doesNotMatch(r.stderr, /EPIPE|Error:|at .*\.js/, r.stderr);
  } finally {
    s.cleanup();
  }
});

test('a connection closed in the middle of a stream is reported as that, not as "not JSON"', async () => {
  const server = await startHttpServer((_req, res) => {
    startSse(res);
    // Half an event, then the server goes away.
    res.end('data: {"choices": [{"index": 0, "delta": {"content": "The ans');
  });
  try {
    const backend = OpenAIBackend.create({ baseUrl: `${server.origin}/v1`, model: 'm', retryBaseDelayMs: 5 });
    await assert.rejects(backend.generate([{ role: 'user', content: 'hi' }]), (err: Error) => {
      assert.match(err.message, /server closed the connection/);
      assert.doesNotMatch(err.message, /not JSON/);
      return true;
    });
  } finally {
    await server.close();
  }
});

test("CLI error hints name the CLI's flags, not the editor's settings", async () => {
  const s = scratch();
  try {
    const file = s.file('m.py', 'def f(x):\n    return x\n');
    const r = await cli(['tests', `${file}::f`, '--endpoint', 'http://127.0.0.1:9/v1', '--model', 'm'], {
      limitMs: 60_000,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /hint: .*--endpoint URL/);
    assert.doesNotMatch(r.stderr, /stepwise\.model\.openai\.baseUrl/);
  } finally {
    s.cleanup();
  }
});

const unavailable = llamaServerUnavailable();
describe('prove --endpoint with default flags', { skip: unavailable }, () => {
  let server: LlamaServer;
  before(async () => {
    server = await startLlamaServer();
  });
  after(async () => {
    await server?.stop();
  });

  test('runs without step scores instead of failing at step scoring', { timeout: 660_000 }, async () => {
    const s = scratch();
    try {
      const doc = s.file('p.md', '## Problem\nShow that 1 + 1 = 2.\n');
      const r = await cli(
        [
          'prove',
          doc,
          '--endpoint',
          server.origin,
          '--model',
          server.model,
          '--iterations',
          '1',
          '--max-tokens',
          '32',
          '--verifier-passes',
          '1',
          '--no-meta',
          '--json',
          '--save-dir',
          path.join(s.dir, 'runs'),
        ],
        { limitMs: 600_000 },
      );
      assert.equal(r.code, 0, `${r.stderr.slice(-2000)}`);
      assert.match(r.stderr, /no step scores with --endpoint alone/);
      const run = JSON.parse(r.stdout);
      assert.equal(run.status, 'completed');
      assert.ok(run.iterations[0].candidates.every((c: { stepScores: unknown }) => c.stepScores === null));
    } finally {
      s.cleanup();
    }
  });
});

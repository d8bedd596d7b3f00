import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SseParser } from '../../../src/core/model/openai/sse';

const STREAM =
  ': keep-alive\r\n\r\n' +
  'data: {"a":1}\r\n\r\n' +
  'event: note\ndata: line one\ndata: line two\n\n' +
  'data:{"é":"日本"}\r\r' +
  'data: [DONE]\n\n';

const EXPECTED = [
  { data: '{"a":1}' },
  { data: 'line one\nline two', event: 'note' },
  { data: '{"é":"日本"}' },
  { data: '[DONE]' },
];

function feed(parser: SseParser, bytes: Uint8Array, cuts: number[]) {
  const events = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...parser.push(bytes.subarray(from, cut)));
    from = cut;
  }
  return [...events, ...parser.end()];
}

test('whole stream: comments skipped, CRLF/CR/LF line ends, multi-line data joined', () => {
  const bytes = new TextEncoder().encode(STREAM);
  assert.deepEqual(feed(new SseParser(), bytes, []), EXPECTED);
});

test('every possible split into two chunks gives the same events (lines, CRLF pairs and UTF-8 split)', () => {
  const bytes = new TextEncoder().encode(STREAM);
  for (let cut = 1; cut < bytes.length; cut++) {
    assert.deepEqual(feed(new SseParser(), bytes, [cut]), EXPECTED, `split at byte ${cut}`);
  }
});

test('byte-by-byte delivery gives the same events', () => {
  const bytes = new TextEncoder().encode(STREAM);
  const cuts = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
  assert.deepEqual(feed(new SseParser(), bytes, cuts), EXPECTED);
});

test('a last event without its blank line still counts at the end of the stream', () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push('data: {"x":2}'), []);
  assert.deepEqual(parser.end(), [{ data: '{"x":2}' }]);
});

test('lines that are not fields are ignored without throwing', () => {
  const parser = new SseParser();
  const events = parser.push('garbage line\nid: 7\nretry: 100\ndata: ok\n\n');
  assert.deepEqual(events, [{ data: 'ok' }]);
});

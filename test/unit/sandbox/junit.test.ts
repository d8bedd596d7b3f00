import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropEmptyCaptures, parseJunit } from '../../../src/core/sandbox/junit';

test('parseJunit reads passed, failed and errored cases with their messages and output', () => {
  const xml = `<?xml version="1.0"?><testsuites><testsuite>
<testcase classname="test_0000" name="test_ok" time="0.010" />
<testcase classname="test_0001" name="test_bad" time="0.002"><failure message="assert 3 == 4">E &lt;detail&gt;</failure><system-out><![CDATA[printed]]></system-out></testcase>
<testcase classname="" name="test_0002" time="0"><error message="collection failure">SyntaxError</error></testcase>
</testsuite></testsuites>`;
  const cases = parseJunit(xml);
  assert.equal(cases.length, 3);
  assert.equal(cases[0].outcome, 'passed');
  assert.equal(cases[0].timeSeconds, 0.01);
  assert.equal(cases[1].outcome, 'failure');
  assert.equal(cases[1].message, 'assert 3 == 4');
  assert.equal(cases[1].details, 'E <detail>');
  assert.equal(cases[1].output, 'printed');
  assert.equal(cases[2].outcome, 'error');
  assert.equal(cases[2].message, 'collection failure');
});

test('parseJunit on garbage returns no cases instead of throwing', () => {
  assert.deepEqual(parseJunit('<testcase name="x'), []);
  assert.deepEqual(parseJunit(''), []);
});

test('empty pytest capture banners are dropped, non-empty ones kept', () => {
  const bar = '-'.repeat(20);
  const text = `assert 3\n${bar} Captured Log ${bar}\n\n${bar} Captured Out ${bar}\nhello\n${bar} Captured Err ${bar}\n`;
  assert.equal(dropEmptyCaptures(text), `assert 3\n${bar} Captured Out ${bar}\nhello`);
});

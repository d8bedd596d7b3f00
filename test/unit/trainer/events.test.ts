import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { TRAINER_EVENT_SCHEMAS, TrainerEvent } from '../../../src/core/trainer/events';
import { findPackageRoot } from '../../../src/core/resources';

interface JsonSchemaVariant {
  properties: Record<string, { const?: string; type?: string }>;
  required: string[];
}

const schema = JSON.parse(fs.readFileSync(path.join(findPackageRoot(), 'protocol', 'trainer-events.schema.json'), 'utf8')) as { oneOf: JsonSchemaVariant[] };

test('the zod mirror and the JSON Schema name the same events, fields and required fields', () => {
  const fromJson = Object.fromEntries(schema.oneOf.map((v) => [v.properties.type.const!, v]));
  assert.deepEqual(Object.keys(fromJson).sort(), Object.keys(TRAINER_EVENT_SCHEMAS).sort());
  for (const [type, zodSchema] of Object.entries(TRAINER_EVENT_SCHEMAS)) {
    const json = fromJson[type];
    const shape = (zodSchema as z.ZodObject).shape as Record<string, z.ZodType>;
    assert.deepEqual(Object.keys(shape).sort(), Object.keys(json.properties).sort(), `fields of ${type}`);
    const requiredInZod = Object.entries(shape)
      .filter(([, s]) => !s.safeParse(undefined).success)
      .map(([k]) => k)
      .sort();
    assert.deepEqual(requiredInZod, [...json.required].sort(), `required fields of ${type}`);
  }
});

test('events the trainer writes parse; malformed ones do not', () => {
  assert.ok(TrainerEvent.safeParse({ type: 'metric', job: 'prm', time: 1, step: 3, data: { loss: 0.5 } }).success);
  assert.ok(TrainerEvent.safeParse({ type: 'done', job: 'prm', time: 1, output: '/x', metrics: {}, onnx: '/x/onnx' }).success);
  assert.equal(TrainerEvent.safeParse({ type: 'metric', job: 'prm', time: 1, step: 3, data: { loss: 'high' } }).success, false);
  assert.equal(TrainerEvent.safeParse({ type: 'progress', job: 'prm', time: 1, step: 1 }).success, false);
  assert.equal(TrainerEvent.safeParse({ type: 'shout', job: 'prm', time: 1 }).success, false);
  assert.equal(TrainerEvent.safeParse({ type: 'error', job: 'prm', time: 1, message: 'x', extra: 1 }).success, false);
});

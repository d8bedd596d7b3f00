/**
 * package.json's `contributes.configuration` and the settings page of the docs, both made from
 * SETTINGS_SCHEMA, and the check that finds where a package.json has drifted from it.
 */
import { z } from 'zod';
import { SETTINGS_SCHEMA, SETTING_KEYS } from './schema';

/** One property of `contributes.configuration.properties`, as VS Code reads it. */
export interface ConfigurationProperty {
  type: string;
  default: unknown;
  description?: string;
  markdownDescription?: string;
  scope: string;
  enum?: string[];
  enumDescriptions?: string[];
  minimum?: number;
  maximum?: number;
}

export interface Configuration {
  title: string;
  properties: Record<string, ConfigurationProperty>;
}

/** The fields a drift is reported on, in the order they are compared. */
const FIELDS = [
  'type',
  'default',
  'minimum',
  'maximum',
  'enum',
  'enumDescriptions',
  'description',
  'markdownDescription',
  'scope',
] as const;

/** The order package.json lists them in. */
const EMITTED = [
  'type',
  'default',
  'description',
  'markdownDescription',
  'scope',
  'enum',
  'enumDescriptions',
  'minimum',
  'maximum',
] as const;

function property(schema: z.ZodType): ConfigurationProperty {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of EMITTED) if (json[field] !== undefined) out[field] = json[field];
  // zod bounds every integer by the safe-integer range; a setting without a bound of its own has none.
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  return out as unknown as ConfigurationProperty;
}

/** What package.json's `contributes.configuration` must be. */
export function configurationFromSchema(): Configuration {
  const properties: Record<string, ConfigurationProperty> = {};
  for (const key of SETTING_KEYS) properties[`stepwise.${key}`] = property(SETTINGS_SCHEMA[key]);
  return { title: 'Stepwise', properties };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Every difference between a package.json configuration and the schema's, one line each
 * ("stepwise.prove.maxIterations: default is 2 in package.json, 3 in the schema"); none: in step.
 */
export function configurationDrift(actual: Configuration, expected = configurationFromSchema()): string[] {
  const drift: string[] = [];
  const have = actual.properties ?? {};
  for (const [key, want] of Object.entries(expected.properties)) {
    const got = have[key] as unknown as Record<string, unknown> | undefined;
    if (!got) {
      drift.push(`${key}: missing from package.json`);
      continue;
    }
    for (const field of FIELDS) {
      const w = (want as unknown as Record<string, unknown>)[field];
      if (!same(got[field], w))
        drift.push(
          `${key}: ${field} is ${JSON.stringify(got[field])} in package.json, ${JSON.stringify(w)} in the schema`,
        );
    }
  }
  for (const key of Object.keys(have))
    if (!(key in expected.properties)) drift.push(`${key}: in package.json, not in the schema`);
  return drift;
}

const cell = (v: unknown) => (v === undefined ? '' : `\`${JSON.stringify(v)}\``);
const text = (s: string | undefined) => (s ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** docs/settings.md: every setting with its default, bounds, choices and description. */
export function settingsPage(config = configurationFromSchema()): string {
  const rows = Object.entries(config.properties).map(([key, p]) => {
    const bounds = [p.minimum, p.maximum].some((b) => b !== undefined)
      ? `${p.minimum ?? '−∞'} … ${p.maximum ?? '∞'}`
      : '';
    const choices = p.enum
      ? p.enum
          .map((e, i) => `\`${e}\`${p.enumDescriptions?.[i] ? `: ${text(p.enumDescriptions[i])}` : ''}`)
          .join('<br>')
      : '';
    return `| \`${key}\` | ${cell(p.default)} | ${bounds} | ${choices} | ${text(p.description ?? p.markdownDescription)} |`;
  });
  return [
    '# Settings',
    '',
    '<!-- Generated from src/core/settings/schema.ts by `npm run gen:settings`; do not edit by hand. -->',
    '',
    'Back to the [README](../README.md). Every setting is under `stepwise.` in the Settings editor;',
    'the same defaults apply on the command line, where a flag overrides them.',
    '',
    '| setting | default | bounds | choices | what it does |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/**
 * Evidence that an input is one the function accepts. A generated test on which the user's
 * function raises, where the implementations return a value, may be a real bug, or an input the
 * function was never meant to take: `rescale_to_unit([1.0])` divides by zero in a function whose
 * docstring asks for at least two numbers, and the implementations that return `[0.0]` only show
 * that the model chose something for it. Agreement among samples of one model cannot tell the
 * two apart; the user's own examples can. So an input counts as within the function's domain when
 * every argument is of a shape some docstring example passes in the same place: the same kind of
 * literal and the same size class (empty, one element, several; zero, negative, positive). A call
 * with an argument that is not a plain literal says nothing against it (that argument counts as
 * covered); without examples nothing is covered, since nothing says what the function accepts.
 *
 * Shapes alone miss a count passed beside its list, the C-style `min_coins(coins, m, V)` where m is
 * the number of coins: `min_coins([1, 2, 3], 10, 15)` is shaped like the example and indexes past
 * the end. So when every example that passes both a whole number and a literal sequence (or
 * string) passes the number equal to that sequence's length, a call whose number differs from its
 * sequence's length is outside the domain too.
 */
import { parserFor, type CodeLanguage } from './functions';

type TsNode = import('web-tree-sitter').Node;

/**
 * The exception type when a test's output says the user's function raised on its call (the
 * oracle's "CALL raised Type: message"); undefined for a value mismatch, a timeout, anything else.
 */
export function raisedOn(output: string | undefined): string | undefined {
  return output ? /\braised ([A-Za-z_][\w.]*):/.exec(output)?.[1] : undefined;
}

const size = (n: number) => (n === 0 ? '0' : n === 1 ? '1' : 'n');

/** An argument's shape: its kind of literal and size class; null when it is not a plain literal. */
function shape(node: TsNode): string | null {
  const named = () => node.namedChildren.filter((c) => c && c.type !== 'comment').length;
  switch (node.type) {
    case 'list':
    case 'tuple':
    case 'set':
      return `seq:${size(named())}`;
    case 'dictionary':
      return `dict:${size(named())}`;
    case 'string':
    case 'concatenated_string': {
      const m = /^[rRbBuUfF]*("""|'''|"|')([\s\S]*)\1$/.exec(node.text);
      return m ? `str:${size(m[2].length)}` : 'str:n';
    }
    case 'integer':
    case 'float':
      return Number(node.text.replace(/_/g, '')) === 0 ? 'num:0' : 'num:+';
    case 'unary_operator': {
      const operand = node.namedChildren.at(-1);
      if (!operand || !/^(integer|float)$/.test(operand.type)) return null;
      if (Number(operand.text.replace(/_/g, '')) === 0) return 'num:0';
      return node.text.trim().startsWith('-') ? 'num:-' : 'num:+';
    }
    case 'true':
    case 'false':
      return 'bool';
    case 'none':
      return 'none';
    case 'parenthesized_expression': {
      const inner = node.namedChildren.find((c) => c && c.type !== 'comment');
      return inner ? shape(inner) : null;
    }
    default:
      return null;
  }
}

/** The first call of `fn` in a tree (it may sit inside a projection such as `sorted(f(x))`). */
function findCall(root: TsNode, fn: string): TsNode | undefined {
  return [root, ...root.descendantsOfType('call')].find(
    (c) => c?.type === 'call' && c.childForFieldName('function')?.text === fn,
  ) as TsNode | undefined;
}

/**
 * A literal argument's size: a whole number's value, or a sequence's or string's length (as
 * Python's len counts it for plain literals); nothing for anything else.
 */
function measure(node: TsNode): { count?: number; length?: number } {
  if (node.type === 'parenthesized_expression') {
    const inner = node.namedChildren.find((c) => c && c.type !== 'comment');
    return inner ? measure(inner) : {};
  }
  if (node.type === 'integer' && /^\d[\d_]*$/.test(node.text))
    return { count: Number(node.text.replace(/_/g, '')) };
  if (/^(list|tuple|set)$/.test(node.type))
    return { length: node.namedChildren.filter((c) => c && c.type !== 'comment').length };
  if (node.type === 'string') {
    const m = /^([rRuU]?)("""|'''|"|')([\s\S]*)\2$/.exec(node.text);
    // An escape makes the literal's text longer than its value: measure only plain ones.
    if (m && !m[3].includes('\\')) return { length: [...m[3]].length };
  }
  return {};
}

/** One argument of a call: its shape (null when not a plain literal) and its size when it has one. */
type Slot = { shape: string | null; count?: number; length?: number };

/** Each argument's slot (position, or keyword name); null when the call cannot be read. */
function slots(root: TsNode, fn: string): Map<string, Slot> | null {
  const call = findCall(root, fn);
  const args = call?.childForFieldName('arguments')?.namedChildren.filter((a) => a && a.type !== 'comment');
  if (!args) return null;
  if (args.some((a) => /splat|generator_expression/.test(a!.type))) return null;
  const out = new Map<string, Slot>();
  let position = 0;
  const slot = (node: TsNode | null): Slot =>
    node ? { shape: shape(node), ...measure(node) } : { shape: null };
  for (const a of args as TsNode[]) {
    if (a.type === 'keyword_argument')
      out.set(`kw:${a.childForFieldName('name')?.text ?? ''}`, slot(a.childForFieldName('value')));
    else out.set(`pos:${position++}`, slot(a));
  }
  return out;
}

/**
 * The (count slot, sequence slot) pairs whose number equals the sequence's length in every example
 * that passes both as literals (at least one does).
 */
function lengthRelations(examples: readonly Map<string, Slot>[]): [string, string][] {
  const held = new Map<string, boolean>();
  for (const ex of examples)
    for (const [countSlot, c] of ex)
      for (const [seqSlot, q] of ex) {
        if (c.count === undefined || q.length === undefined) continue;
        const key = `${countSlot}|${seqSlot}`;
        held.set(key, c.count === q.length && (held.get(key) ?? true));
      }
  return [...held].filter(([, ok]) => ok).map(([key]) => key.split('|') as [string, string]);
}

/**
 * For each test line, whether its call of `name` passes only inputs shaped like the docstring
 * examples' (see above). Python only; other languages, and lines whose call cannot be read, count
 * as covered (nothing is known against them), unless there are no examples at all.
 */
export async function inputsCovered(
  name: string,
  language: CodeLanguage,
  tests: readonly string[],
  examples: readonly string[],
): Promise<boolean[]> {
  if (!examples.length) return tests.map(() => false);
  if (language !== 'python' || !tests.length) return tests.map(() => true);
  const parser = await parserFor(language);
  try {
    const read = (line: string) => {
      const tree = parser.parse(line);
      try {
        return tree ? slots(tree.rootNode, name) : null;
      } finally {
        tree?.delete();
      }
    };
    // The shapes the examples pass in each slot; a non-literal in an example leaves the slot open.
    const seen = new Map<string, Set<string | null>>();
    const exampleSlots = examples.flatMap((ex) => read(ex) ?? []);
    for (const ex of exampleSlots)
      for (const [slot, { shape: s }] of ex) {
        const set = seen.get(slot) ?? new Set();
        set.add(s);
        seen.set(slot, set);
      }
    const relations = lengthRelations(exampleSlots);
    return tests.map((line) => {
      const got = read(line);
      if (!got) return true;
      const shaped = [...got].every(([slot, { shape: s }]) => {
        const allowed = seen.get(slot);
        return s === null || (allowed !== undefined && (allowed.has(null) || allowed.has(s)));
      });
      const counted = relations.every(([countSlot, seqSlot]) => {
        const count = got.get(countSlot)?.count;
        const length = got.get(seqSlot)?.length;
        return count === undefined || length === undefined || count === length;
      });
      return shaped && counted;
    });
  } finally {
    parser.delete();
  }
}

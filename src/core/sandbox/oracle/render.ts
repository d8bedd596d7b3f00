/** Values as a person reads them in a verdict: Python's repr, or a node-inspect-like form. */
import type { Value } from './values';

const LIMIT = 1000;

function pyFloat(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (Object.is(v, -0)) return '-0.0';
  const s = String(v);
  return /[.e]/.test(s) ? s.replace(/e\+?/, 'e+').replace('e+-', 'e-') : `${s}.0`;
}

function pyBytes(hex: string): string {
  let out = "b'";
  for (let i = 0; i < hex.length; i += 2) {
    const c = parseInt(hex.slice(i, i + 2), 16);
    out +=
      c === 0x27
        ? "\\'"
        : c === 0x5c
          ? '\\\\'
          : c >= 0x20 && c < 0x7f
            ? String.fromCharCode(c)
            : `\\x${hex.slice(i, i + 2)}`;
  }
  return `${out}'`;
}

export function pyRepr(x: Value): string {
  const r = (() => {
    switch (x.t) {
      case 'none':
        return 'None';
      case 'ellipsis':
        return 'Ellipsis';
      case 'bool':
        return x.v ? 'True' : 'False';
      case 'int':
        return x.v.toString();
      case 'float':
        return pyFloat(x.v);
      case 'complex':
        return `(${pyFloat(x.re)}${x.im < 0 || Object.is(x.im, -0) ? '' : '+'}${pyFloat(x.im)}j)`;
      case 'str':
        return `'${x.v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
      case 'bytes':
        return pyBytes(x.v);
      case 'list':
        return `[${x.v.map(pyRepr).join(', ')}]`;
      case 'tuple':
        return x.v.length === 1 ? `(${pyRepr(x.v[0])},)` : `(${x.v.map(pyRepr).join(', ')})`;
      case 'set':
        return x.v.length ? `{${x.v.map(pyRepr).join(', ')}}` : 'set()';
      case 'frozenset':
        return `frozenset(${x.v.length ? `{${x.v.map(pyRepr).join(', ')}}` : ''})`;
      case 'dict':
        return `{${x.v.map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
      case 'opaque':
        return `<${x.type} object: not a plain value, never equal>`;
      default:
        return jsInspect(x);
    }
  })();
  return r.length > LIMIT ? `${r.slice(0, LIMIT)}…` : r;
}

export function jsInspect(x: Value): string {
  const r = (() => {
    switch (x.t) {
      case 'undefined':
      case 'null':
        return x.t;
      case 'hole':
        return '<empty>';
      case 'bool':
        return String(x.v);
      case 'number':
        return Object.is(x.v, -0) ? '-0' : String(x.v);
      case 'bigint':
        return `${x.v}n`;
      case 'string':
        return `'${x.v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
      case 'array':
        return x.v.length ? `[ ${x.v.map(jsInspect).join(', ')} ]` : '[]';
      case 'object':
        return `${x.proto === 'null' ? '[Object: null prototype] ' : ''}${x.v.length ? `{ ${x.v.map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`}: ${jsInspect(v)}`).join(', ')} }` : '{}'}`;
      case 'map':
        return `Map(${x.v.length}) { ${x.v.map(([k, v]) => `${jsInspect(k)} => ${jsInspect(v)}`).join(', ')} }`;
      case 'set':
        return `Set(${x.v.length}) { ${x.v.map(jsInspect).join(', ')} }`;
      case 'date':
        return Number.isNaN(x.v) ? 'Invalid Date' : new Date(x.v).toISOString();
      case 'opaque':
        return `<${x.type}: not a plain value, never equal>`;
      default:
        return pyRepr(x);
    }
  })();
  return r.length > LIMIT ? `${r.slice(0, LIMIT)}…` : r;
}

/**
 * The sandbox's seccomp filter, handed to bubblewrap (`--seccomp FD`). It refuses, with ENOSYS:
 *
 * - the kernel keyring calls (`add_key`, `request_key`, `keyctl`). Keyrings are not namespaced
 *   like files: a sandbox inherits its caller's session keyring and may read every key in it
 *   (possession grants access whatever the uid), and a key it adds there outlives the run, so
 *   state would carry from one run to the next and defeat the flaky check.
 * - `sched_setaffinity`, so the code under test cannot widen the CPU cores it was pinned to.
 *
 * A call from another ABI than the machine's own (32-bit `int 0x80`, x32 on x86-64) is refused
 * whole, since its numbers differ and would slip past the list.
 */

/** One classic-BPF instruction: `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }`. */
interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const ENOSYS = 38;
/** Offsets in `struct seccomp_data`. */
const NR = 0;
const ARCH = 4;
const X32_BIT = 0x40000000;

interface ArchTable {
  audit: number;
  blocked: number[];
  /** Whether syscall numbers with the x32 bit must be refused (x86-64). */
  x32: boolean;
}

/** add_key, request_key, keyctl, sched_setaffinity, by architecture. */
const ARCHES: Partial<Record<NodeJS.Architecture, ArchTable>> = {
  x64: { audit: 0xc000003e, blocked: [248, 249, 250, 203], x32: true },
  arm64: { audit: 0xc00000b7, blocked: [217, 218, 219, 122], x32: false },
};

/** What the filter refuses, in words, for the isolation report. */
export const SECCOMP_BLOCKS = 'kernel keyring calls (add_key, request_key, keyctl) and sched_setaffinity';

/** The filter as bytes for bubblewrap, or null on an architecture this file does not know. */
export function seccompProgram(arch: NodeJS.Architecture = process.arch): Buffer | null {
  const table = ARCHES[arch];
  if (!table) return null;
  const deny: Insn = { code: RET_K, jt: 0, jf: 0, k: RET_ERRNO | ENOSYS };
  const checks = table.blocked.length + (table.x32 ? 1 : 0);
  // Jumps count instructions forward from the next one; the deny is the last instruction.
  const prog: Insn[] = [
    { code: LD_W_ABS, jt: 0, jf: 0, k: ARCH },
    { code: JEQ_K, jt: 1, jf: 0, k: table.audit },
    deny,
    { code: LD_W_ABS, jt: 0, jf: 0, k: NR },
  ];
  let left = checks;
  if (table.x32) prog.push({ code: JGE_K, jt: left--, jf: 0, k: X32_BIT });
  for (const nr of table.blocked) prog.push({ code: JEQ_K, jt: left--, jf: 0, k: nr });
  prog.push({ code: RET_K, jt: 0, jf: 0, k: RET_ALLOW }, deny);
  const out = Buffer.alloc(prog.length * 8);
  prog.forEach((insn, i) => {
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(insn.jt, i * 8 + 2);
    out.writeUInt8(insn.jf, i * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return out;
}

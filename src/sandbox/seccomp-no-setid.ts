/**
 * The seccomp filter bwrap installs for every sandboxed command (`--seccomp FD`): no call may give
 * a file the setuid or setgid bit, so a root worker never finds a setuid-root program the agent
 * made in the project. A classic-BPF program, built here as bytes (an array of
 * `struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}`, little-endian, as the kernel reads it).
 *
 * Denied with EPERM: chmod, fchmod, fchmodat(2) whose mode has 06000; creat, mkdir(at),
 * mknod(at) with such a mode; open/openat creating a file (O_CREAT or O_TMPFILE) with it.
 * Answered ENOSYS, so callers fall back to the calls above: openat2 (its mode sits behind a
 * pointer BPF cannot read) and io_uring (whose openat and mkdirat never pass through seccomp).
 * A call of another architecture (i386 or x32 on x86-64, AArch32 on arm64) kills the process:
 * its numbers mean other calls. File capabilities need CAP_SETFCAP, which `--cap-drop ALL`
 * already removes, so setxattr is left alone (its name is a pointer too).
 */

const SETID_BITS = 0o6000;
const O_CREAT = 0o100;
const O_TMPFILE_BIT = 0o20000000;
const EPERM = 1;
const ENOSYS = 38;

const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO = 0x00050000;
const RET_ALLOW = 0x7fff0000;

// BPF opcodes: ld word absolute, jeq/jset with a constant, ret constant.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const RET_K = 0x06;

const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
/** The low 32 bits of argument i (little-endian: the low word comes first). */
const argOffset = (i: number): number => 16 + 8 * i;

/** A call whose mode argument is checked; `flagsArg`: only when those flags create a file. */
interface ModeRule {
  nr: number;
  modeArg: number;
  flagsArg?: number;
}

interface ArchTable {
  audit: number;
  /** x86-64: numbers with this bit are the x32 ABI, another table. */
  foreignBit?: number;
  modeRules: ModeRule[];
  unsupported: number[];
}

const X86_64: ArchTable = {
  audit: 0xc000003e,
  foreignBit: 0x40000000,
  modeRules: [
    { nr: 90, modeArg: 1 }, // chmod
    { nr: 91, modeArg: 1 }, // fchmod
    { nr: 268, modeArg: 2 }, // fchmodat
    { nr: 452, modeArg: 2 }, // fchmodat2
    { nr: 85, modeArg: 1 }, // creat
    { nr: 83, modeArg: 1 }, // mkdir
    { nr: 258, modeArg: 2 }, // mkdirat
    { nr: 133, modeArg: 1 }, // mknod
    { nr: 259, modeArg: 2 }, // mknodat
    { nr: 2, modeArg: 2, flagsArg: 1 }, // open
    { nr: 257, modeArg: 3, flagsArg: 2 }, // openat
  ],
  unsupported: [437, 425, 426, 427], // openat2, io_uring_setup, io_uring_enter, io_uring_register
};

const AARCH64: ArchTable = {
  audit: 0xc00000b7,
  modeRules: [
    { nr: 52, modeArg: 1 }, // fchmod
    { nr: 53, modeArg: 2 }, // fchmodat
    { nr: 452, modeArg: 2 }, // fchmodat2
    { nr: 34, modeArg: 2 }, // mkdirat
    { nr: 33, modeArg: 2 }, // mknodat
    { nr: 56, modeArg: 3, flagsArg: 2 }, // openat
  ],
  unsupported: [437, 425, 426, 427],
};

const TABLES: Partial<Record<NodeJS.Architecture, ArchTable>> = { x64: X86_64, arm64: AARCH64 };

type Target = string;
interface Insn {
  code: number;
  k: number;
  jt?: Target;
  jf?: Target;
  label?: string;
}

/** The filter for the worker's architecture; undefined where there is no table (neither x64 nor arm64). */
export function noSetidFilter(arch: NodeJS.Architecture = process.arch): Buffer | undefined {
  const table = TABLES[arch];
  return table ? assemble(program(table)) : undefined;
}

function program(table: ArchTable): Insn[] {
  const out: Insn[] = [
    { code: LD_W_ABS, k: ARCH_OFFSET },
    { code: JEQ_K, k: table.audit, jt: 'nr', jf: 'kill' },
    { code: LD_W_ABS, k: NR_OFFSET, label: 'nr' },
  ];
  if (table.foreignBit !== undefined) out.push({ code: JSET_K, k: table.foreignBit, jt: 'kill', jf: 'calls' });
  const first = out.length;
  for (const rule of table.modeRules) out.push({ code: JEQ_K, k: rule.nr, jt: ruleLabel(rule), jf: 'next' });
  for (const nr of table.unsupported) out.push({ code: JEQ_K, k: nr, jt: 'enosys', jf: 'next' });
  out[first]!.label = 'calls';
  out.push({ code: RET_K, k: RET_ALLOW });
  const blocks = new Set<string>();
  for (const rule of table.modeRules) {
    const label = ruleLabel(rule);
    if (blocks.has(label)) continue;
    blocks.add(label);
    if (rule.flagsArg !== undefined) {
      out.push({ code: LD_W_ABS, k: argOffset(rule.flagsArg), label });
      out.push({ code: JSET_K, k: O_CREAT | O_TMPFILE_BIT, jt: 'next', jf: 'allow' });
      out.push({ code: LD_W_ABS, k: argOffset(rule.modeArg) });
    } else out.push({ code: LD_W_ABS, k: argOffset(rule.modeArg), label });
    out.push({ code: JSET_K, k: SETID_BITS, jt: 'eperm', jf: 'allow' });
  }
  out.push({ code: RET_K, k: RET_ERRNO | EPERM, label: 'eperm' });
  out.push({ code: RET_K, k: RET_ERRNO | ENOSYS, label: 'enosys' });
  out.push({ code: RET_K, k: RET_KILL_PROCESS, label: 'kill' });
  out.push({ code: RET_K, k: RET_ALLOW, label: 'allow' });
  return out;
}

function ruleLabel(rule: ModeRule): string {
  return rule.flagsArg === undefined ? `mode${rule.modeArg}` : `create${rule.flagsArg}_${rule.modeArg}`;
}

/** Jump targets become forward offsets ('next' is the following instruction); BPF jumps only forward, by at most 255. */
function assemble(insns: Insn[]): Buffer {
  const at = new Map<string, number>();
  insns.forEach((insn, i) => insn.label !== undefined && at.set(insn.label, i));
  const offset = (from: number, target: Target | undefined): number => {
    if (target === undefined || target === 'next') return 0;
    const to = at.get(target);
    if (to === undefined || to <= from || to - from - 1 > 255) throw new Error(`seccomp filter: bad jump to ${target}`);
    return to - from - 1;
  };
  const bytes = Buffer.alloc(insns.length * 8);
  insns.forEach((insn, i) => {
    bytes.writeUInt16LE(insn.code, i * 8);
    bytes.writeUInt8(offset(i, insn.jt), i * 8 + 2);
    bytes.writeUInt8(offset(i, insn.jf), i * 8 + 3);
    bytes.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return bytes;
}

/** The program as printf escapes (`\ooo` per byte): how the launcher hands it to bwrap through a pipe, with no file to keep. */
export function printfEscaped(bytes: Buffer): string {
  return [...bytes].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
}

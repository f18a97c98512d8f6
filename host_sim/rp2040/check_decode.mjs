// Runs every 16-bit Thumb opcode, and 32-bit ones with sampled second half-words, on two
// rp2040js chips side by side: one with the package's own decoding, one with the table
// (fast_decode.mjs). From the same registers, flags and memory, each instruction must leave
// the same registers, flags, core state, cycle count and memory on both.
//
//   node host_sim/rp2040/check_decode.mjs ESM_DIR [--spoil]
//
// Prints `checked N instructions, M differ` and the first differences; --spoil points one
// opcode at a wrong branch first and checks that opcode's neighbours only (the check must see
// it). Exit status 1 when any differ.
import path from 'path';
import { pathToFileURL } from 'url';
import { tableDecodeModule } from './fast_decode.mjs';

const [dir, flag] = process.argv.slice(2);
const esmDir = path.resolve(dir);
const { RP2040 } = await import(pathToFileURL(path.join(esmDir, 'index.js')).href);
const table = await import(tableDecodeModule(esmDir)); // exports the class and DECODE_TABLE
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const say = console.log;
console.log = console.warn = console.error = () => {}; // random stores reach unmodelled SIO addresses
const plainChip = new RP2040();
const tableChip = new RP2040();
for (const chip of [plainChip, tableChip]) chip.logger = silent;
tableChip.core.executeInstruction = table.CortexM0Core.prototype.executeInstruction;
if (flag === '--spoil') table.DECODE_TABLE[0x1c08] = table.DECODE_TABLE[0x1e08]; // ADDS r0, r1, #0 as SUBS

const RAM = 0x20000000;
const CODE = RAM + 0x100;
const DATA = RAM + 0x1000; // registers point into this window (loads, stores, the stack)
const WINDOW = 0x800;
let seed = 0x2545f491;
const random32 = () => { // xorshift32: the same states on every run
  seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5;
  return seed >>> 0;
};
const CORE_FIELDS = ['N', 'Z', 'C', 'V', 'PM', 'SPSEL', 'nPRIV', 'currentMode', 'IPSR', 'waiting',
  'eventRegistered', 'cycles', 'breakRewind', 'pendingSVCall', 'pendingPendSV', 'pendingNMI',
  'pendingInterrupts', 'enabledInterrupts', 'interruptsUpdated', 'bankedSP', 'VTOR'];

function prepare(chip, words, state) {
  const { core, sram } = chip;
  sram.set(state.memory, DATA - RAM);
  sram[CODE - RAM] = words[0] & 0xff; sram[CODE - RAM + 1] = words[0] >> 8;
  sram[CODE - RAM + 2] = words[1] & 0xff; sram[CODE - RAM + 3] = words[1] >> 8;
  core.registers.set(state.registers);
  core.PC = CODE;
  for (const f of CORE_FIELDS) core[f] = state.core[f];
}

function outcome(chip) {
  const { core } = chip;
  const seen = Array.from(core.registers);
  seen.push(core.PC);
  for (const f of CORE_FIELDS) seen.push(core[f]);
  return seen;
}

function run(chip, words, state) {
  prepare(chip, words, state);
  let error = '';
  try {
    chip.core.executeInstruction();
  } catch (e) {
    error = String(e);
  }
  const seen = outcome(chip);
  seen.push(error);
  return seen;
}

const memoryOf = (chip) => chip.sram.subarray(DATA - RAM, DATA - RAM + WINDOW);
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

function randomState() {
  const registers = new Uint32Array(16);
  for (let r = 0; r < 13; r++) {
    const kind = random32() & 3; // pointers into the window mostly, small and wide values too
    registers[r] = kind < 2 ? DATA + (random32() & (WINDOW / 2 - 4)) : kind === 2 ? random32() & 0x1f : random32();
  }
  registers[13] = DATA + WINDOW / 2; // SP
  registers[14] = (CODE + 0x40) | 1; // LR
  const memory = new Uint8Array(WINDOW);
  for (let i = 0; i < WINDOW; i++) memory[i] = random32() & 0xff;
  const core = {};
  for (const f of CORE_FIELDS) core[f] = plainChip.core[f];
  Object.assign(core, { N: !!(random32() & 1), Z: !!(random32() & 1), C: !!(random32() & 1),
    V: !!(random32() & 1), waiting: false, cycles: 0, interruptsUpdated: false });
  return { registers, memory, core };
}

const differ = [];
let checked = 0;
const states = [randomState(), randomState()];
const seconds = [0x0000, 0x8f4f, 0x8f5f, 0x8f6f, 0xf800, 0xd000, 0x8800, 0xa000]; // BL, barriers, MRS/MSR, UDF
const [first, end] = flag === '--spoil' ? [0x1c00, 0x1d00] : [0, 65536];
for (let opcode = first; opcode < end; opcode++) {
  const wide = table.DECODE_TABLE[opcode] === 255;
  const pairs = wide ? seconds.map((s) => [opcode, s | (random32() & 0x7ff & ~0x80)]).concat(seconds.map((s) => [opcode, s]))
    : [[opcode, 0]];
  for (const words of pairs) {
    for (const state of states) {
      const a = run(plainChip, words, state);
      const b = run(tableChip, words, state);
      checked++;
      if (!same(a, b) || Buffer.compare(memoryOf(plainChip), memoryOf(tableChip)) !== 0) {
        differ.push(`${words.map((w) => w.toString(16).padStart(4, '0')).join(' ')}: ${a} | ${b}`);
      }
    }
  }
}
say(`checked ${checked} instructions, ${differ.length} differ`);
for (const line of differ.slice(0, 5)) say(line);
process.exit(differ.length ? 1 : 0);

// Table decoding for rp2040js's Cortex-M0+ core: the same instructions, found in one lookup.
//
// rp2040js decodes each Thumb instruction through one long if / else-if chain (about 80
// tests, in alphabetical order of the mnemonic), so a load or a store passes 30 tests before
// it runs; that walk is most of the emulated chip's host time. This module reads the pinned
// rp2040js's own executeInstruction, keeps every branch's body as it is, and puts a switch on
// a 64 K table in front of them: for every 16-bit opcode the table holds the branch the chain
// would take. A 32-bit instruction (BL, MRS, MSR, the barriers) depends on its second
// half-word too, so the table sends those through the chain's branches that can take one.
//
// Nothing is copied into this repository: the faster method is generated from the installed
// package at start (beside it, as `cortex-m0-core.table-decode-<digest>.js`, the digest of the
// package's file and of this one) and checked against the chain by
// tests/test_rp2040_decode.py. If the package's method ever stops having the shape parsed
// here, `tableDecode` throws; the runner (board.mjs) then says so and runs the plain core.
import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import { fileURLToPath, pathToFileURL } from 'url';

const GENERATOR = fs.readFileSync(fileURLToPath(import.meta.url));
const FALLBACK = 255; // a 32-bit instruction: the original chain decides

// ---- a small scanner over JavaScript source: skips strings, template literals and comments.
function skipSpace(src, i) {
  for (;;) {
    while (i < src.length && /\s/.test(src[i])) i++;
    if (src.startsWith('//', i)) i = src.indexOf('\n', i) + 1;
    else if (src.startsWith('/*', i)) i = src.indexOf('*/', i) + 2;
    else return i;
  }
}

function skipQuoted(src, i) {
  const quote = src[i];
  for (i++; src[i] !== quote; i++) {
    if (src[i] === '\\') i++;
    else if (quote === '`' && src.startsWith('${', i)) i = matching(src, i + 1);
  }
  return i;
}

// The index of the bracket closing the one at `open` ('{' or '(').
function matching(src, open) {
  const close = src[open] === '{' ? '}' : ')';
  const opener = src[open];
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === '"' || c === "'" || c === '`') i = skipQuoted(src, i);
    else if (src.startsWith('//', i)) i = src.indexOf('\n', i);
    else if (src.startsWith('/*', i)) i = src.indexOf('*/', i) + 1;
    else if (c === opener) depth++;
    else if (c === close && --depth === 0) return i;
  }
  throw new Error(`no bracket closes the one at ${open}`);
}

function expect(src, i, word) {
  if (!src.startsWith(word, i)) throw new Error(`expected "${word}" at ${i}: ${src.slice(i, i + 40)}`);
  return i + word.length;
}

// The decode chain of executeInstruction: [{cond, body}], the final else's body, and where the
// chain starts and ends in `src`.
function parseChain(src, from) {
  const branches = [];
  let i = skipSpace(src, from);
  const start = i;
  let elseBody = '{}';
  for (;;) {
    i = skipSpace(src, expect(src, i, 'if'));
    const condEnd = matching(src, i);
    const cond = src.slice(i + 1, condEnd);
    i = skipSpace(src, condEnd + 1);
    if (src[i] !== '{') throw new Error(`a branch without braces at ${i}`);
    const bodyEnd = matching(src, i);
    branches.push({ cond, body: src.slice(i, bodyEnd + 1) });
    i = skipSpace(src, bodyEnd + 1);
    if (!src.startsWith('else', i)) return { branches, elseBody, start, end: i };
    i = skipSpace(src, i + 4);
    if (src[i] === '{') {
      const end = matching(src, i);
      elseBody = src.slice(i, end + 1);
      return { branches, elseBody, start, end: end + 1 };
    }
  }
}

// A condition may read the two half-words and nothing else: then it is a pure function of them.
function checkPure(cond) {
  const names = cond.replace(/0[bx][0-9a-f]+|\d+/gi, ' ').match(/[A-Za-z_$][\w$]*/g) || [];
  for (const n of names) {
    if (n !== 'opcode' && n !== 'opcode2') throw new Error(`a decode condition reads ${n}: ${cond}`);
  }
}

function generate(src) {
  const head = '    executeInstruction() {';
  const at = src.indexOf(head);
  if (at < 0) throw new Error('no executeInstruction() in the core');
  const open = at + head.length - 1;
  const close = matching(src, open);
  const method = src.slice(open, close + 1);
  const marker = 'let deltaCycles = 1;';
  const m = method.indexOf(marker);
  if (m < 0) throw new Error(`no "${marker}" in executeInstruction`);
  const wide = /const wideInstruction = ([^;]+);/.exec(method);
  if (!wide) throw new Error('no wideInstruction test in executeInstruction');
  checkPure(wide[1]);
  const chain = parseChain(method, m + marker.length);
  if (chain.branches.length >= FALLBACK) throw new Error('more branches than the table can name');
  chain.branches.forEach((b) => checkPure(b.cond));
  const cases = chain.branches.map((b, k) => `            case ${k}: ${b.body} break;`);
  cases.push(`            case ${chain.branches.length}: ${chain.elseBody} break;`);
  // The chain again for 32-bit instructions, keeping only the branches that can take one (in
  // their order): the function stays small enough for the JIT to compile it whole.
  const isWide = new Function('opcode', `return ${wide[1]};`);
  const widths = [];
  for (let opcode = 0; opcode < 65536; opcode++) if (isWide(opcode)) widths.push(opcode);
  const takesWide = (b) => {
    if (/\bopcode2\b/.test(b.cond)) return true; // the second half-word decides: keep it
    const test = new Function('opcode', `return ${b.cond};`);
    return widths.some((opcode) => test(opcode));
  };
  const wideChain = chain.branches.filter(takesWide)
    .map((b) => `if (${b.cond}) ${b.body}`).concat([chain.elseBody]).join('\n            else ');
  const faster = method.slice(0, chain.start)
    + 'switch (DECODE_TABLE[opcode]) {\n' + cases.join('\n')
    + '\n            default: ' + wideChain + '\n        }\n        '
    + method.slice(chain.end);
  const table = `
// For each 16-bit opcode: the index of the branch executeInstruction's chain takes (the final
// else is the last index), or ${FALLBACK} for the first half of a 32-bit instruction.
export const DECODE_TABLE = new Uint8Array(65536);
{
    const tests = [\n${chain.branches.map((b) => `        (opcode, opcode2) => (${b.cond}),`).join('\n')}
    ];
    for (let opcode = 0; opcode < 65536; opcode++) {
        if (${wide[1]}) {
            DECODE_TABLE[opcode] = ${FALLBACK};
            continue;
        }
        let k = 0;
        while (k < tests.length && !tests[k](opcode, 0)) k++;
        DECODE_TABLE[opcode] = k;
    }
}
`;
  return src.slice(0, open) + faster + src.slice(close + 1) + table;
}

// Write the table-decoding copy of `esmDir`/cortex-m0-core.js beside it (once per package and
// generator version) and return its URL.
export function tableDecodeModule(esmDir) {
  const file = path.join(esmDir, 'cortex-m0-core.js');
  const src = fs.readFileSync(file, 'utf8');
  const digest = crypto.createHash('sha256').update(src).update(GENERATOR).digest('hex').slice(0, 12);
  const out = path.join(esmDir, `cortex-m0-core.table-decode-${digest}.js`);
  if (!fs.existsSync(out)) {
    const tmp = `${out}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, generate(src));
    fs.renameSync(tmp, out);
    for (const name of fs.readdirSync(esmDir)) { // those of an older package or generator
      if (/^cortex-m0-core\.table-decode-\w+\.js$/.test(name) && path.join(esmDir, name) !== out) {
        fs.rmSync(path.join(esmDir, name), { force: true });
      }
    }
  }
  return pathToFileURL(out).href;
}

// Give `core` (an rp2040js CortexM0Core) the table-decoding executeInstruction.
export async function tableDecode(esmDir, core) {
  const { CortexM0Core } = await import(tableDecodeModule(esmDir));
  core.executeInstruction = CortexM0Core.prototype.executeInstruction;
}

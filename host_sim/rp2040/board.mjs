#!/usr/bin/env node
// Reedchess's board at the pins of an emulated Pico (rp2040js + stock MicroPython RPI_PICO).
//
//   node board.mjs --rp-dir .cache/rp2040 --tcp SERIAL_PORT --control CONTROL_PORT --config '{...}'
//   node board.mjs --rp-dir .cache/rp2040 --tcp SERIAL_PORT      a bare Pico: nothing at its pins
//
// The one runner of the emulated Pico (tools/emulated_pico.py starts it bare, host_sim/rp2040/
// pico_board.py with a board). --rp-dir holds npm rp2040js and the firmware (default: the stock
// micropython-RPI_PICO-*.bin that `make emulators` puts there; --image F for another); the
// RP2040 boot ROM is bootrom/ beside this file (Raspberry Pi's, BSD-3-Clause: bootrom/README.md).
//
// SERIAL_PORT: the board's USB serial (raw bytes; mpremote connects as socket://127.0.0.1:PORT).
// CONTROL_PORT: JSON lines, one request -> one answer (host_sim/rp2040/pico_board.py speaks it):
//   {"op":"time"}                               -> {"ns": emulated nanoseconds}
//   {"op":"switch","phys":N,"closed":true}      reed switch N = row*8+col of the matrix
//   {"op":"switches","closed":[N,...]}          every switch at once (all others open)
//   {"op":"button","pin":P,"down":true}         a push button to ground
//   {"op":"run","ms":N}                         answers once N more emulated ms have run
//   {"op":"frames","since_ns":T}                the WS2812 frames latched after T (and the one
//                                               showing at T): [{t, px: "rrggbb..."}]
//   {"op":"display"}                            SSD1306: {on, ram: hex of the 1 KB GDDRAM, writes}
//   {"op":"buzzer"}                             [[t_ns, hz, duty_u16], ...] every change of the tone
//   {"op":"scans","since_ns":T,"gap_ms":G}      matrix scans since T (with expanders: reads of the
//                                               first chip's GPIOA): count, gaps longer than G ms
//   {"op":"pins"}                               levels and directions of the modelled pins
//   {"op":"mcp","addr":A,"present":false}       MCP23017 A off its bus (a loose wire); true: back,
//                                               with its power-on registers
//   {"op":"i2c_hold","bus":B,"low":true}        bus B held low: every transfer fails (false: freed)
//   {"op":"mcp_regs"}                           the expanders' registers: {addr: [22 bytes]}
//   {"op":"flash_save","path":F}                the flash as it is now (its first 2 MB, the Pico's
//                                               flash: 343 KB MicroPython image, then littlefs) into F
//   {"op":"cut","at_ns":T,"path":F}             a power cut at emulated time T (or "flash_call":K:
//                                               just before the K-th boot-ROM erase/program call
//                                               from now): the flash is saved into F at that moment,
//                                               between two instructions; "halt":true stops the chip
//                                               there, else it runs on (the caller kills the runner
//                                               and starts a new one from F). Answers at once; every
//                                               later answer carries "cut": {ns, calls} once it fired
//   {"op":"flash_ops","since_ns":T}             the ROM erase/program calls after T: [[ns, "RE"|"RP",
//                                               flash offset, bytes], ...] (the last 4096)
// Every answer carries "ns" (the emulated time it was made at).
//
// Start options: --flash-image F loads a saved flash (flash_save / cut) instead of the stock
// image: a power-on with the files the board had; --closed 1,2,... closes those reed switches
// from the first instruction on (the pieces standing on the board at power-on).
//
// The model (config: rows, cols, pull, neopixel pin and count, buttons, buzzer pin, i2c bus+addr):
// - reed matrix with a diode per switch (anode at the column, cathode at the row): a column
//   reads low iff some row driven low has its switch closed; otherwise its pull decides
//   (pull-up: high). Computed in the GPIO listeners, so the firmware's next read sees it.
// - WS2812 chain: the data pin's pulses are timed on the emulated clock (high > 625 ns = 1),
//   24 bits GRB per pixel, a low of > 50 us latches the frame.
// - buttons: a pressed button pulls its pin low, a released one leaves it to its pull.
// - buzzer: the PWM slice of the pin: frequency = clk_sys / divider / (top + 1), duty from CC.
// - MCP23017 expanders (config mcp: {i2c, addrs, pins, active}) on their I2C bus, timed at the
//   bus's clock; switch N is chip N // pins, input N % pins (GPA0..7, GPB0..7).
// - SSD1306 on the I2C bus: acknowledges its address, parses control bytes 0x80/0x00 (commands)
//   and 0x40 (data, horizontal addressing into the 128x8 page RAM).
import fs from 'fs';
import net from 'net';
import path from 'path';
import { fileURLToPath, pathToFileURL } from 'url';
import { tableDecode } from './fast_decode.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = { rpDir: path.join(here, '..', '..', '.cache', 'rp2040'), quiet: false };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--rp-dir') opt.rpDir = argv[++i];
  else if (a === '--image') opt.image = argv[++i];
  else if (a === '--bootrom') opt.bootrom = argv[++i];
  else if (a === '--tcp') opt.tcp = Number(argv[++i]);
  else if (a === '--control') opt.control = Number(argv[++i]);
  else if (a === '--config') opt.config = JSON.parse(argv[++i]);
  else if (a === '--flash-image') opt.flashImage = argv[++i];
  else if (a === '--closed') opt.closed = argv[++i].split(',').filter((x) => x !== '').map(Number);
  else if (a === '--quiet') opt.quiet = true;
  else throw new Error(`unknown argument ${a}`);
}
if (!opt.tcp) throw new Error('need --tcp PORT (and --control PORT --config JSON for a board at the pins)');
const rpDir = path.resolve(opt.rpDir);
const esmDir = path.join(rpDir, 'node_modules', 'rp2040js', 'dist', 'esm');
const { Simulator, USBCDC, ConsoleLogger, LogLevel, GPIOPinState } = await import(
  pathToFileURL(path.join(esmDir, 'index.js')).href);
opt.image ||= path.join(rpDir, fs.readdirSync(rpDir).find((n) => /^micropython-RPI_PICO-.*\.bin$/.test(n)));
opt.bootrom ||= path.join(here, 'bootrom', 'rp2040-bootrom-b1.bin');
// Without --config: a bare Pico, nothing wired to its pins (the REPL, flash and heap figures).
const cfg = { rows: [], cols: [], buttons: [], neopixel: null, pixels: 0, buzzer: null, i2c: null, ...opt.config };

const NS_PER_CYCLE = 8; // the Simulator's 125 MHz
const sim = new Simulator();
const mcu = sim.rp2040;
const core = mcu.core;
// REEDCHESS_PLAIN_CORE=1 runs rp2040js as published: without the table decoding
// (fast_decode.mjs) and the SRAM-first write below (to compare the two).
const plainCore = process.env.REEDCHESS_PLAIN_CORE === '1';
if (!plainCore) {
  try {
    await tableDecode(esmDir, core);
  } catch (e) { // a package whose decoder fast_decode.mjs cannot read: slower, the same chip
    console.error(`# table decoding off, rp2040js decodes as published: ${e.message}`);
  }
}
const clock = sim.clock;
mcu.logger = new ConsoleLogger(LogLevel.Error);
const rom = fs.readFileSync(opt.bootrom);
mcu.loadBootrom(new Uint32Array(rom.buffer, rom.byteOffset, rom.length / 4));
mcu.flash.set(fs.readFileSync(opt.flashImage || opt.image), 0);
const FLASH_BYTES = 2 * 1024 * 1024; // the Pico's W25Q16: what flash_save keeps
function saveFlash(file) {
  fs.writeFileSync(file + '.tmp', mcu.flash.subarray(0, FLASH_BYTES));
  fs.renameSync(file + '.tmp', file);
}

// ---- the boot ROM's flash routines -------------------------------------------------------
// rp2040js has no QSPI flash command model: do what the ROM's erase/program functions would do
// on mcu.flash, found through the ROM's function table (two-letter codes).
const romTable = new Map();
{
  const h = (a) => rom[a] | (rom[a + 1] << 8);
  for (let a = h(0x14); h(a); a += 4) romTable.set(String.fromCharCode(h(a) & 0xff, h(a) >> 8), h(a + 2) & ~1);
}
const r = (n) => core.registers[n] >>> 0;
const romCalls = new Map();
// Each erase/program call is done at once, as one step: a power cut (the "cut" op) falls
// between two calls, never inside one (a real chip can lose power in the middle of a page).
const flashOps = []; // [ns, "RE"|"RP", offset, bytes]
let flashCalls = 0; // erase + program calls so far
const cut = { armed: false, atNs: Infinity, atCall: Infinity, path: null, halt: false, fired: null };
let halted = false;
function fireCut() {
  saveFlash(cut.path);
  cut.armed = false;
  cut.fired = { ns: clock.nanos, calls: flashCalls, path: cut.path };
  if (cut.halt) {
    halted = true;
    for (const w of timeWaiters.splice(0)) w.resolve();
  }
}
function flashOp(kind, off, n) {
  if (cut.armed && flashCalls + 1 >= cut.atCall) fireCut();
  if (halted) return false;
  flashCalls++;
  flashOps.push([clock.nanos, kind, off, n]);
  if (flashOps.length > 4096) flashOps.splice(0, 1024);
  return true;
}
for (const code of ['IF', 'EX', 'FC', 'CX']) romCalls.set(romTable.get(code), () => {});
romCalls.set(romTable.get('RE'), () => {
  if (flashOp('RE', r(0), r(1))) mcu.flash.fill(0xff, r(0), r(0) + r(1));
});
romCalls.set(romTable.get('RP'), () => {
  const dst = r(0), src = r(1), n = r(2);
  if (!flashOp('RP', dst, n)) return;
  for (let i = 0; i < n; i++) mcu.flash[dst + i] &= mcu.readUint8(src + i);
});
// Which boot ROM addresses are the entries above: the run loop asks this table on every ROM
// instruction (the ROM's float and memory routines run often) and the Map only on a hit.
const romEntry = new Uint8Array(0x4000);
for (const address of romCalls.keys()) romEntry[address] = 1;

// rp2040js looks a 32-bit write's address up among the peripherals before it tries the SRAM,
// and that lookup misses for every SRAM address: write the SRAM first (no peripheral sits
// there, checked here), the same store the plain path ends in.
if (!plainCore) {
  const RAM = 0x20000000;
  const ramEnd = RAM + mcu.sram.length;
  for (let a = RAM; a < ramEnd; a += 0x4000) {
    if (mcu.findPeripheral(a)) throw new Error(`a peripheral at SRAM address ${a.toString(16)}`);
  }
  const sramView = mcu.sramView;
  const writeElsewhere = mcu.writeUint32.bind(mcu);
  mcu.writeUint32 = (address, value) => {
    address >>>= 0;
    if (address >= RAM && address + 3 < ramEnd) sramView.setUint32(address - RAM, value, true);
    else writeElsewhere(address, value);
  };
}

// ---- USB serial ----------------------------------------------------------------------------
const cdc = new USBCDC(mcu.usbCtrl);
const toDevice = [];
let serialSock = null;
cdc.onSerialData = (buf) => {
  if (serialSock) serialSock.write(Buffer.from(buf));
  if (!opt.quiet) process.stdout.write(buf);
};
// A host NAKs an OUT read when it has nothing to send; rp2040js answers at once with zero bytes,
// which keeps the chip in a USB interrupt storm. Hold the read until bytes are waiting.
const plainRead = mcu.usbCtrl.onEndpointRead;
let heldRead = null;
mcu.usbCtrl.onEndpointRead = (ep, size) => {
  if (ep === cdc.outEndpoint && cdc.txFIFO.empty && toDevice.length === 0) { heldRead = [ep, size]; return; }
  plainRead(ep, size);
};
function feedSerial() {
  let n = 0;
  while (n < toDevice.length && !cdc.txFIFO.full) cdc.txFIFO.push(toDevice[n++]);
  if (n) toDevice.splice(0, n);
  if (heldRead && !cdc.txFIFO.empty) { const [ep, size] = heldRead; heldRead = null; plainRead(ep, size); }
}

// ---- the reed matrix and the buttons ------------------------------------------------------
const gpio = mcu.gpio;
const closed = new Uint8Array(64); // phys = row * 8 + col
for (const p of opt.closed || []) closed[p] = 1;
const pressed = new Set(); // button pins held down
const rowIndex = new Map(cfg.rows.map((p, i) => [p, i]));
const drivenLow = (p) => gpio[p].value === GPIOPinState.Low;
function pulled(p) { // the level a pin's own pull gives it when nothing drives it
  const pin = gpio[p];
  if (pin.pullupEnabled && !pin.pulldownEnabled) return true;
  if (pin.pulldownEnabled && !pin.pullupEnabled) return false;
  return cfg.floating_high ?? true; // no pull (or bus keeper): an external resistor is assumed
}
function setInput(p, level) {
  const pin = gpio[p];
  // rp2040js reads rawInputValue; write it only when it changes (each write rescans IRQs)
  if (pin._modelLevel !== level) { pin._modelLevel = level; pin.setInputValue(level); }
}
function updateColumns() {
  for (let c = 0; c < cfg.cols.length; c++) {
    let low = false;
    for (let rw = 0; rw < 8 && !low; rw++) low = closed[rw * 8 + c] === 1 && drivenLow(cfg.rows[rw]);
    setInput(cfg.cols[c], low ? false : pulled(cfg.cols[c]));
  }
}
function updateButton(p) { setInput(p, pressed.has(p) ? false : pulled(p)); }
for (const p of cfg.rows) gpio[p].addListener(updateColumns);
// the start of every scan (the first row driven low), for the gaps between the firmware's scans
const scans = new Float64Array(1 << 16);
let scanCount = 0;
if (cfg.rows.length) gpio[cfg.rows[0]].addListener((state) => {
  if (state === GPIOPinState.Low) scans[scanCount++ & 0xffff] = clock.nanos;
});
for (const p of cfg.cols) gpio[p].addListener(updateColumns); // pull changes
for (const p of cfg.buttons) gpio[p].addListener(() => updateButton(p));
updateColumns();
for (const p of cfg.buttons) updateButton(p);

// ---- the WS2812 chain, decoded from the data pin's timing ---------------------------------
const pixels = cfg.pixels;
const frames = []; // {t, px} latched frames (the last 4096)
let riseNs = -1, fallNs = -1, bits = [];
function latch() {
  if (!bits.length) return;
  const n = Math.floor(bits.length / 8);
  const bytes = new Uint8Array(pixels * 3);
  for (let i = 0; i < n && i < bytes.length; i++) {
    let v = 0;
    for (let k = 0; k < 8; k++) v = (v << 1) | bits[i * 8 + k];
    bytes[i] = v;
  }
  let px = '';
  for (let i = 0; i < pixels; i++) { // wire order G R B -> "rrggbb"
    const [g, rr, b] = [bytes[3 * i], bytes[3 * i + 1], bytes[3 * i + 2]];
    px += [rr, g, b].map((x) => x.toString(16).padStart(2, '0')).join('');
  }
  frames.push({ t: fallNs, px, bits: bits.length });
  if (frames.length > 4096) frames.splice(0, 1024);
  bits = [];
}
if (cfg.neopixel !== null && cfg.neopixel !== undefined) gpio[cfg.neopixel].addListener((state) => {
  const t = clock.nanos;
  if (state === GPIOPinState.High) {
    if (fallNs >= 0 && t - fallNs > 50000) latch();
    riseNs = t;
  } else if (state === GPIOPinState.Low && riseNs >= 0) {
    bits.push(t - riseNs > 625 ? 1 : 0);
    riseNs = -1;
    fallNs = t;
  }
});
function latchIfIdle() { if (bits.length && clock.nanos - fallNs > 50000) latch(); }

// ---- the buzzer's PWM ----------------------------------------------------------------------
const tones = [];
const slice = (cfg.buzzer >> 1) & 7, chanB = cfg.buzzer & 1;
let lastTone = '';
function sampleTone() {
  const ch = mcu.pwm.channels[slice];
  const enabled = (ch.csr & 1) === 1 && gpio[cfg.buzzer].functionSelect === 4;
  const top = ch.top + 1;
  const cc = chanB ? ch.cc >>> 16 : ch.cc & 0xffff;
  const divider = ((ch.div >> 4) & 0xff || 256) + (ch.div & 0xf) / 16;
  const hz = enabled ? Math.round(mcu.clkSys / divider / top / ((ch.csr & 2) ? 2 : 1)) : 0;
  const duty = enabled ? Math.min(65535, Math.round((cc / top) * 65535)) : 0;
  const key = `${hz},${duty}`;
  if (key !== lastTone) { lastTone = key; tones.push([clock.nanos, hz, duty]); if (tones.length > 4096) tones.splice(0, 1024); }
}
if (cfg.buzzer !== null && cfg.buzzer !== undefined) {
  const plainWrite = mcu.pwm.writeUint32.bind(mcu.pwm);
  mcu.pwm.writeUint32 = (offset, value) => { plainWrite(offset, value); sampleTone(); };
}

// ---- I2C: the SSD1306 and the MCP23017 expanders ---------------------------------------------
// Each bus carries its devices by address: {write(byte, first) -> ack, read() -> byte}; a start
// to an address nobody answers is NACKed (machine.I2C raises OSError EIO). On a bus with the
// expanders the bytes take their time: 9 SCL periods a byte (address or data, with its ACK) and
// one for a start or a stop, at the bus's own clock (IC_FS_SCL_HCNT + LCNT), so a scan costs
// what it costs on the wire; a display on a bus of its own keeps the instant transfers it had.
const i2cDevices = [new Map(), new Map()];
const i2cTimed = [false, false];
const i2cHeld = [false, false]; // a bus held low: every transfer fails (arbitration lost)
const R_TX_EMPTY = 1 << 4; // IC_RAW_INTR_STAT's TX_EMPTY
const ARGS = { 0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8d: 1, 0xa8: 1, 0xd3: 1, 0xd5: 1, 0xd9: 1, 0xda: 1, 0xdb: 1 };
const oled = { on: false, ram: new Uint8Array(1024), writes: 0, col: 0, page: 0, c0: 0, c1: 127, p0: 0, p1: 7 };
if (cfg.i2c !== null && cfg.i2c !== undefined) {
  let mode = 0, pending = null;
  const command = (b) => {
    pending = pending ? [...pending, b] : [b];
    if (pending.length - 1 < (ARGS[pending[0]] || 0)) return;
    const [c, ...a] = pending;
    pending = null;
    if (c === 0xaf) oled.on = true;
    else if (c === 0xae) oled.on = false;
    else if (c === 0x21) { [oled.c0, oled.c1] = a; oled.col = oled.c0; }
    else if (c === 0x22) { [oled.p0, oled.p1] = [a[0] & 7, a[1] & 7]; oled.page = oled.p0; }
  };
  const data = (b) => {
    oled.ram[oled.page * 128 + oled.col] = b;
    if (++oled.col > oled.c1) { oled.col = oled.c0; if (++oled.page > oled.p1) oled.page = oled.p0; }
  };
  i2cDevices[cfg.i2c].set(cfg.i2c_addr, {
    write(b, first) {
      if (first) { mode = b; oled.writes++; } else if (mode === 0x40) data(b); else command(b);
      return true;
    },
    read: () => 0x00,
  });
}
// MCP23017 (IOCON.BANK = 0): 22 registers, the pointer set by a write's first byte and advanced
// by every byte after it (IOCON.SEQOP = 0); IODIR 0xff, the rest 0 at power-on. GPIOA/B read
// each pin's level XOR its IPOL bit: a closed switch pulls its input low (mcp.active 1: a
// push-pull sensor drives it high, and low when open); an open one is left to the pull-up
// (GPPU), and without one it floats and reads 0 here.
const expanders = new Map(); // addr -> {k, regs}
const mcpScans = new Float64Array(1 << 16); // chip 0's GPIOA reads: one a scan
let mcpScanCount = 0;
function mcpLevel(k, pin, regs) {
  const m = cfg.mcp;
  const wired = pin < m.pins;
  const phys = k * m.pins + pin;
  if (wired && closed[phys]) return m.active ? 1 : 0;
  if (wired && m.active) return 0;
  return (regs[0x0c + (pin >> 3)] >> (pin & 7)) & 1;
}
function mcpPort(k, regs, port) {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const bit = 1 << i;
    let level = mcpLevel(k, port * 8 + i, regs);
    if (!(regs[port] & bit)) level = regs[0x14 + port] & bit ? 1 : 0; // an output reads its latch
    else if (regs[0x02 + port] & bit) level ^= 1;
    v |= level << i;
  }
  return v;
}
function mcpDevice(k) {
  const regs = new Uint8Array(22);
  regs[0] = regs[1] = 0xff;
  let ptr = 0;
  return {
    regs,
    write(b, first) {
      if (first) ptr = b % 22;
      else { regs[ptr] = b; ptr = (ptr + 1) % 22; }
      return true;
    },
    read() {
      if (k === 0 && ptr === 0x12) mcpScans[mcpScanCount++ & 0xffff] = clock.nanos;
      const v = ptr === 0x12 || ptr === 0x13 ? mcpPort(k, regs, ptr - 0x12) : regs[ptr];
      ptr = (ptr + 1) % 22;
      return v;
    },
  };
}
if (cfg.mcp) {
  i2cTimed[cfg.mcp.i2c] = true;
  cfg.mcp.addrs.forEach((addr, k) => {
    const dev = mcpDevice(k);
    expanders.set(addr, dev);
    i2cDevices[cfg.mcp.i2c].set(addr, dev);
  });
}
for (const busNo of [0, 1]) {
  const devices = i2cDevices[busNo];
  if (!devices.size) continue;
  const bus = mcu.i2c[busNo];
  let dev = null, first = true;
  const alarm = clock.createAlarm(() => { const fn = due; due = null; fn(); });
  let due = null;
  const later = (periods, fn) => { // after `periods` SCL periods on a timed bus, else at once
    if (!i2cTimed[busNo]) return fn();
    due = fn;
    alarm.schedule(periods * (bus.sclHighPeriod + bus.sclLowPeriod) * NS_PER_CYCLE);
  };
  bus.onStart = () => {
    if (i2cHeld[busNo]) return later(1, () => bus.arbitrationLost());
    later(1, () => bus.completeStart());
  };
  // A NACK aborts the transfer: the controller flushes its TX FIFO, so TX_EMPTY rises and the
  // SDK goes on to read the abort's source (machine.I2C raises OSError EIO at once). rp2040js
  // leaves TX_EMPTY low after an abort: the SDK then waited out machine.I2C's timeout
  // (ETIMEDOUT, 50 ms) and left the abort pending, so the next transfer to another chip failed.
  const nacked = (ack) => { if (!ack) bus.setInterrupts(R_TX_EMPTY); };
  bus.onConnect = (addr) => {
    dev = devices.get(addr) || null;
    first = true;
    later(9, () => { const ack = dev !== null; bus.completeConnect(ack); nacked(ack); });
  };
  bus.onWriteByte = (b) => {
    const ack = dev !== null && dev.write(b, first);
    first = false;
    later(9, () => { bus.completeWrite(ack); nacked(ack); });
  };
  bus.onReadByte = () => {
    const v = dev ? dev.read() : 0xff;
    later(9, () => bus.completeRead(v));
  };
  bus.onStop = () => { dev = null; later(1, () => bus.completeStop()); };
}

// ---- running -------------------------------------------------------------------------------
const timeWaiters = []; // {ns, resolve}
// A core waiting (WFE/WFI) with no alarm ahead waits for the host: bytes on the USB serial or a
// pin change. Emulated time stands still then, so the runner sleeps instead of spinning, and
// host input wakes it at once (wake()).
const IDLE_SLEEP_MS = 5;
let sleeping = null;
function wake() {
  if (sleeping === null) return;
  clearTimeout(sleeping);
  sleeping = null;
  setImmediate(slice200k);
}
function slice200k() {
  sleeping = null;
  if (halted) return;
  let idle = false;
  for (let i = 0; i < 200000; i++) {
    if (core.waiting) {
      if (clock.nextAlarm === null && !cut.armed) {
        idle = true;
        break;
      }
      let ns = clock.nanosToNextAlarm;
      if (cut.armed && clock.nanos + ns > cut.atNs) ns = Math.max(NS_PER_CYCLE, cut.atNs - clock.nanos);
      clock.tick(ns);
      i += ns / NS_PER_CYCLE;
    } else {
      clock.tick(core.executeInstruction() * NS_PER_CYCLE);
      if (core.PC < 0x4000 && romEntry[core.PC] === 1) {
        const call = romCalls.get(core.PC);
        if (call) {
          call();
          if (halted) return; // the power went just before this erase/program call
          core.PC = core.registers[14] & ~1;
        }
      }
    }
    if (cut.armed && clock.nanos >= cut.atNs) {
      fireCut();
      if (halted) return;
    }
  }
  feedSerial();
  latchIfIdle();
  for (let j = timeWaiters.length - 1; j >= 0; j--) {
    if (clock.nanos >= timeWaiters[j].ns) timeWaiters.splice(j, 1)[0].resolve();
  }
  if (idle && core.waiting && toDevice.length === 0) sleeping = setTimeout(slice200k, IDLE_SLEEP_MS);
  else setImmediate(slice200k);
}
core.PC = 0x10000000; // boot2 first, as on the chip
setImmediate(slice200k);

// ---- the serial port ------------------------------------------------------------------------
net.createServer((s) => {
  if (serialSock) serialSock.destroy();
  serialSock = s;
  s.setNoDelay(true);
  s.on('data', (d) => { for (const b of d) toDevice.push(b); wake(); });
  s.on('close', () => { if (serialSock === s) serialSock = null; });
  s.on('error', () => {});
}).listen(opt.tcp, '127.0.0.1', () => console.error(`# serial on tcp://127.0.0.1:${opt.tcp}`));

// ---- the control port ---------------------------------------------------------------------
function pinsReport() {
  const out = {};
  for (const p of [...cfg.rows, ...cfg.cols, ...cfg.buttons, cfg.neopixel]) {
    out[p] = { state: gpio[p].value, in: gpio[p].inputValue, fn: gpio[p].functionSelect };
  }
  return out;
}
async function handle(req) {
  switch (req.op) {
    case 'time': return {};
    case 'switch':
      closed[req.phys] = req.closed ? 1 : 0;
      updateColumns();
      return {};
    case 'switches':
      closed.fill(0);
      for (const p of req.closed) closed[p] = 1;
      updateColumns();
      return {};
    case 'button':
      if (req.down) pressed.add(req.pin); else pressed.delete(req.pin);
      updateButton(req.pin);
      return {};
    case 'run': {
      if (halted) return { halted: true };
      const ns = clock.nanos + Math.round(req.ms * 1e6);
      await new Promise((resolve) => timeWaiters.push({ ns, resolve }));
      return {};
    }
    case 'flash_save':
      saveFlash(req.path);
      return { bytes: FLASH_BYTES, calls: flashCalls };
    case 'cut':
      if (cut.armed || cut.fired) throw new Error('a cut is armed or done already');
      Object.assign(cut, { armed: true, path: req.path, halt: !!req.halt,
        atNs: req.at_ns ?? Infinity, atCall: req.flash_call ? flashCalls + req.flash_call : Infinity });
      return { calls: flashCalls };
    case 'flash_ops':
      return { ops: flashOps.filter((o) => o[0] > (req.since_ns ?? -1)), calls: flashCalls };
    case 'frames': {
      latchIfIdle();
      const since = req.since_ns ?? 0;
      let k = frames.length;
      while (k > 0 && frames[k - 1].t > since) k--;
      return { frames: frames.slice(Math.max(0, k - 1)), count: frames.length };
    }
    case 'display':
      return { on: oled.on, writes: oled.writes, ram: Buffer.from(oled.ram).toString('hex') };
    case 'buzzer':
      return { tones: tones.filter((t) => t[0] >= (req.since_ns ?? 0)) };
    case 'scans': { // scans after since_ns (of the last 65536): how many, and the gaps longer than gap_ms
      const since = req.since_ns ?? 0, gapNs = (req.gap_ms ?? 50) * 1e6;
      const gaps = [];
      let n = 0, prev = -1, first = -1;
      const [times, count] = cfg.mcp ? [mcpScans, mcpScanCount] : [scans, scanCount]; // expanders: chip 0's reads
      for (let i = Math.max(0, count - 65536); i < count; i++) {
        const t = times[i & 0xffff];
        if (t < since) { prev = t; continue; }
        n++;
        if (first < 0) first = t;
        if (prev >= 0 && t - prev > gapNs) gaps.push([prev, t]);
        prev = t;
      }
      if (prev >= 0 && clock.nanos - prev > gapNs) gaps.push([prev, clock.nanos]);
      return { count: n, gaps, first };
    }
    case 'pins':
      return { pins: pinsReport() };
    case 'mcp': { // an expander taken off its bus ("present": false) or put back (power-on registers)
      const dev = expanders.get(req.addr);
      if (!dev) throw new Error(`no MCP23017 at ${req.addr}`);
      if (req.present) {
        dev.regs.fill(0);
        dev.regs[0] = dev.regs[1] = 0xff;
        i2cDevices[cfg.mcp.i2c].set(req.addr, dev);
      } else i2cDevices[cfg.mcp.i2c].delete(req.addr);
      return {};
    }
    case 'i2c_hold': // a bus held low: every transfer fails until released
      i2cHeld[req.bus] = !!req.low;
      return {};
    case 'mcp_regs':
      return { regs: Object.fromEntries([...expanders].map(([a, d]) => [a, Array.from(d.regs)])) };
    default:
      throw new Error(`unknown op ${req.op}`);
  }
}
const controlServer = net.createServer((s) => {
  s.setNoDelay(true);
  let acc = '';
  let chain = Promise.resolve();
  s.on('data', (d) => {
    acc += d.toString('utf8');
    let i;
    while ((i = acc.indexOf('\n')) >= 0) {
      const line = acc.slice(0, i);
      acc = acc.slice(i + 1);
      if (!line.trim()) continue;
      chain = chain.then(async () => {
        let reply;
        try {
          reply = await handle(JSON.parse(line));
        } catch (e) {
          reply = { error: String(e && e.message || e) };
        }
        reply.ns = clock.nanos;
        if (cut.fired) reply.cut = cut.fired;
        if (halted) reply.halted = true;
        s.write(JSON.stringify(reply) + '\n');
        wake(); // a pin may have changed: an interrupt for a core that slept
      });
    }
  });
  s.on('error', () => {});
});
if (opt.control) controlServer.listen(opt.control, '127.0.0.1', () => console.error(`# control on tcp://127.0.0.1:${opt.control}`));

#!/usr/bin/env node
import { runCli } from './commands/program.js';

const code = await runCli(process.argv.slice(2));
// A failed command exits at once, whatever handles it left open; a served one keeps running.
if (code !== 0) process.exit(code);

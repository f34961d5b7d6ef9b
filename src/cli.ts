#!/usr/bin/env node
import { runCli } from './commands/program.js';

// A reader that stops early (`stratum --help | head`) closes the pipe: stop quietly, as other
// command-line tools do, rather than crash on the write that follows.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

const code = await runCli(process.argv.slice(2));
// A failed command exits at once, whatever handles it left open; a served one keeps running.
if (code !== 0) process.exit(code);

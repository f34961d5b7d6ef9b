#!/usr/bin/env node
import { runCli } from './commands/program.js';

// `node dist/server.js` is `stratum serve`, for deployments and scripts that start the file directly.
const code = await runCli(['serve', ...process.argv.slice(2)]);
if (code !== 0) process.exit(code);

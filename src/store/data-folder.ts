import fs from 'node:fs';
import path from 'node:path';
import { StoreUnreachableError } from './connection-failures.js';

/**
 * Creates the embedded store's data folder and any missing parent, a level at a time. Node's
 * recursive mkdir retries forever, at full CPU, where the file system refuses a new folder with
 * ENOENT although its parent exists (under /proc, for one); made level by level, every refusal is
 * an error that names the folder.
 */
export function makeDataFolder(dataDir: string): void {
  const missing: string[] = [];
  for (let folder = path.resolve(dataDir); !fs.existsSync(folder); folder = path.dirname(folder)) {
    missing.unshift(folder);
    if (path.dirname(folder) === folder) break;
  }
  for (const folder of missing) {
    try {
      fs.mkdirSync(folder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      throw new StoreUnreachableError(
        `cannot create the data folder ${dataDir} (STRATUM_DATA_DIR): making ${folder} failed (${code ?? String(error)}). ` +
          'Set STRATUM_DATA_DIR to a folder on a disk this user may write to',
        { cause: error },
      );
    }
  }
}

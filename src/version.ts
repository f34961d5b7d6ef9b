import fs from 'node:fs';

/** The version in package.json: the API description, `stratum --version` and the service index show it. */
export function packageVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return manifest.version ?? '0.0.0';
}

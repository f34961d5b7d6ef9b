/**
 * STRATUM_CORS_ORIGINS: a comma-separated list of origins as browsers send them
 * (`https://ui.example.com`, `http://localhost:3000`). Answers to these origins allow credentials,
 * which browsers refuse together with a wildcard, so `*` is not accepted, nor a pattern with one
 * (`https://*.example.com`): each origin is named.
 */
export function parseOrigins(raw: string | undefined, problems: string[]): string[] {
  const origins: string[] = [];
  for (const entry of (raw ?? '').split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    if (entry === '*') {
      problems.push('STRATUM_CORS_ORIGINS must name each origin: "*" cannot be combined with the credentials the web UI may send');
      continue;
    }
    // A URL parser takes `*` as part of a host name, so the pattern would stand as one literal origin.
    if (entry.includes('*')) {
      problems.push(`STRATUM_CORS_ORIGINS must name each origin: "${entry}" is a pattern, which no browser sends as its origin`);
      continue;
    }
    const origin = /^https?:\/\/[^/?#@\s]+\/?$/i.test(entry) ? originOf(entry) : undefined;
    if (origin === undefined) {
      problems.push(`STRATUM_CORS_ORIGINS must list origins like https://ui.example.com (scheme, host and port, no path), got "${entry}"`);
      continue;
    }
    origins.push(origin);
  }
  return [...new Set(origins)];
}

/** The origin of a URL as browsers write it (lower-case host, default port left out), or undefined. */
function originOf(text: string): string | undefined {
  try {
    return new URL(text).origin;
  } catch {
    return undefined;
  }
}

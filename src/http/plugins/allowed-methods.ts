/**
 * The methods each path of the service answers, so that a known path asked with another method is
 * a 405 naming them in `Allow`, not a 404 that suggests the path is wrong. Filled from Fastify's
 * onRoute hook, so every route counts, whoever registers it.
 */
export class AllowedMethods {
  private readonly routes: { method: string; pattern: RegExp; catchAll: boolean }[] = [];

  add(methods: string | readonly string[], url: string): void {
    const path = withoutTrailingSlash(url);
    const pattern = new RegExp(
      `^${path
        .split(/(:\w+|\*)/)
        .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
        .join('')}$`,
    );
    // A route for every path (a CORS preflight answers OPTIONS anywhere) says nothing about which paths exist.
    const catchAll = path === '' || path === '*' || path === '/*';
    for (const method of typeof methods === 'string' ? [methods] : methods) this.routes.push({ method, pattern, catchAll });
  }

  /** The methods the routes other than catch-alls answer at a path; undefined when none matches it. */
  of(url: string): string[] | undefined {
    const path = withoutTrailingSlash(url.split('?')[0] ?? url);
    // A catch-all's method (OPTIONS for preflights, which it answers only to allowed origins) is not one the path answers.
    const matching = this.routes.filter((route) => !route.catchAll && route.pattern.test(path));
    if (matching.length === 0) return undefined;
    const methods = new Set(matching.map((route) => route.method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}

function withoutTrailingSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

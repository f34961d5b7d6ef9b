import { badRequest } from '../errors.js';
import { apiPrefix, type Route, type RouteKind } from './routes.js';

/** A route an href names, with the path parameters it gives. */
export interface ResolvedHref {
  route: Route;
  params: Record<string, string>;
}

interface CompiledRoute {
  route: Route;
  /** The path's segments: a literal, or the name of a parameter. */
  segments: ({ literal: string } | { parameter: string })[];
}

/**
 * Finds the route an operation's `href` names, as the router would a request path: relative to the
 * API's base (`/organization/{id}/workspace`, what Terrakube's web UI sends), or absolute
 * (`/api/v1/...`, or a whole URL of this server). Query strings and fragments have no meaning in an
 * operation and are refused.
 */
export class HrefResolver {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => ({
      route,
      segments: route.path
        .split('/')
        .slice(1)
        .map((segment) => (segment.startsWith(':') ? { parameter: segment.slice(1) } : { literal: segment })),
    }));
  }

  /** The route of one of `kinds` at `href`; undefined when no such route serves that path. */
  resolve(href: string, kinds: readonly RouteKind[]): ResolvedHref | undefined {
    const segments = this.segmentsOf(href);
    for (const { route, segments: pattern } of this.compiled) {
      if (!kinds.includes(route.kind) || pattern.length !== segments.length) continue;
      const params: Record<string, string> = Object.create(null) as Record<string, string>;
      const matches = pattern.every((part, index) => {
        const segment = segments[index] ?? '';
        if ('literal' in part) return part.literal === segment;
        params[part.parameter] = segment;
        return segment !== '';
      });
      if (matches) return { route, params };
    }
    return undefined;
  }

  private segmentsOf(href: string): string[] {
    let url: URL;
    try {
      url = new URL(href, 'http://stratum.invalid');
    } catch {
      throw badRequest('invalid_href', 'href is not a URI reference.', { pointer: '/href' });
    }
    if (url.search !== '' || url.hash !== '' || href.includes('?') || href.includes('#')) {
      throw badRequest('invalid_href', 'An href names a resource, a collection or a relationship; it takes no query or fragment.', {
        pointer: '/href',
      });
    }
    let path = url.pathname;
    if (!path.startsWith(`${apiPrefix}/`)) path = `${apiPrefix}${path.startsWith('/') ? '' : '/'}${path}`;
    const segments = path.split('/').slice(1);
    // A trailing slash names the same thing, as for requests.
    if (segments.length > 1 && segments.at(-1) === '') segments.pop();
    return segments.map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        throw badRequest('invalid_href', 'href holds a malformed percent-encoding.', { pointer: '/href' });
      }
    });
  }
}

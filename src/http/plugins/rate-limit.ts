import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { callerIdentity } from '../../auth/caller.js';
import type { RateLimits } from '../../config.js';
import { ApiError } from '../../errors.js';
import { graphqlPath } from '../routes/graphql-route.js';

type Kind = 'reads' | 'writes';

/** A bucket of a caller's requests of one kind: full at the limit, refilled at the limit per minute. */
interface Bucket {
  tokens: number;
  at: number;
}

const windowSeconds = 60;
/** Paths never limited: what load balancers and orchestrators poll. */
const unlimited = new Set(['/healthz', '/readyz']);
/** Above this many callers remembered, full buckets are forgotten at once rather than at the next sweep. */
const rememberedCallers = 100_000;

/**
 * Limits each caller's requests, reads (GET, HEAD) and writes (everything else) apart, as token
 * buckets that hold a minute's allowance and refill continuously: a page that loads thirty records
 * at once is never slowed, a script that loops is. The caller is the person, team or job behind a
 * token (any of its tokens), or the client address when there is none (public routes, the state
 * backend's Basic auth, which its routes read themselves). Every answer says where the caller stands
 * (`RateLimit-Policy` and `RateLimit`, the IETF httpapi draft's fields); one past the limit is 429
 * with `Retry-After`, as a JSON:API error document, or a GraphQL one at the GraphQL endpoint. Counted per
 * process: behind N replicas a caller may make up to N times as many.
 */
export const rateLimit = fp(
  (app: FastifyInstance, limits: RateLimits) => {
    const buckets: Record<Kind, Map<string, Bucket>> = { reads: new Map(), writes: new Map() };
    const perMinute: Record<Kind, number> = { reads: limits.readsPerMinute, writes: limits.writesPerMinute };
    /** What a bucket holds now: what it held, and what has flowed in since, up to a full minute's allowance. */
    const level = (bucket: Bucket, kind: Kind, now: number) =>
      Math.min(perMinute[kind], bucket.tokens + ((now - bucket.at) / 1000) * (perMinute[kind] / windowSeconds));
    // A full bucket is as good as none: forgetting it bounds the memory to the callers of the last minute.
    const sweep = () => {
      const now = Date.now();
      for (const kind of ['reads', 'writes'] as const)
        for (const [who, bucket] of buckets[kind]) if (level(bucket, kind, now) >= perMinute[kind]) buckets[kind].delete(who);
    };
    const timer = setInterval(sweep, windowSeconds * 1000);
    timer.unref();
    app.addHook('onClose', (_instance, done) => {
      clearInterval(timer);
      done();
    });

    app.addHook('preHandler', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
      const kind: Kind = request.method === 'GET' || request.method === 'HEAD' ? 'reads' : 'writes';
      const limit = perMinute[kind];
      // An agent's calls are bounded by the jobs it runs at once, not by a person's pace.
      const agent = request.caller?.token.kind === 'agentToken';
      if (limit === 0 || agent || request.method === 'OPTIONS' || unlimited.has(request.routeOptions.url ?? '')) {
        done();
        return;
      }
      const caller = request.caller;
      const who = caller === undefined ? `address ${request.ip}` : callerIdentity(caller);
      const now = Date.now();
      const rate = limit / windowSeconds;
      const known = buckets[kind].get(who);
      const bucket = known ?? { tokens: limit, at: now };
      bucket.tokens = level(bucket, kind, now);
      bucket.at = now;
      if (known === undefined) {
        if (buckets[kind].size >= rememberedCallers) sweep();
        buckets[kind].set(who, bucket);
      }
      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      const remaining = Math.floor(bucket.tokens);
      // Seconds until the bucket is full again: the draft's reset of the quota.
      const reset = Math.ceil((limit - bucket.tokens) / rate);
      void reply.header('ratelimit-policy', `"${kind}";q=${limit};w=${windowSeconds}`);
      void reply.header('ratelimit', `"${kind}";r=${remaining};t=${reset}`);
      if (allowed) {
        done();
        return;
      }
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
      const detail = `This caller made more than ${limit} ${kind} in a minute; retry in ${retryAfterSeconds} s.`;
      if (request.routeOptions.url === graphqlPath) {
        // GraphQL clients read errors[].message: the answer keeps their shape.
        void reply
          .code(429)
          .header('retry-after', String(retryAfterSeconds))
          .type('application/json; charset=utf-8')
          .send({ errors: [{ message: detail, extensions: { code: 'RATE_LIMITED' } }] });
        return;
      }
      done(new ApiError(429, { code: 'rate_limited', detail }, { retryAfterSeconds }));
    });
  },
  { name: 'rate-limit', dependencies: ['error-rendering'] },
);

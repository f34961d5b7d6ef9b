import os from 'node:os';
import type { Caller } from '../auth/caller.js';
import type { Config } from '../config.js';
import { Engine, type Session } from '../engine/index.js';
import { registry, tokenPolicies, recordPolicies } from '../resources/index.js';
import type { Store } from '../store/database.js';

/**
 * The console's administrator: whoever may run commands with the server's configuration may
 * already mint an administrator token, so the console acts as one. Audit columns name the OS user.
 */
export function consoleAdministrator(config: Config): Caller {
  const subject = `console:${os.userInfo().username}`;
  return {
    subject,
    email: undefined,
    name: subject,
    groups: [config.adminGroup],
    isAdministrator: true,
    token: { kind: 'console', trackedId: undefined, expiresAt: undefined },
  };
}

/**
 * The console's session with the engine, for token administration and reading the audit trail: it
 * writes no records and issues no tokens, so it needs neither the encryption key nor the signing key.
 */
export function consoleSession(config: Config, store: Store): Session {
  return consoleEngine(config, store).open(consoleAdministrator(config), { transport: 'console' });
}

/** The console's engine, without keys: for work that seals nothing (agent tokens keep only hashes). */
export function consoleEngine(config: Config, store: Store): Engine {
  return new Engine({
    registry,
    recordPolicies,
    tokenPolicies,
    apiTokens: undefined,
    store,
    cipher: undefined,
    responseMemory: config.responseMemory,
  });
}

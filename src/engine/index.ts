/**
 * The engine's front door: the only module of the engine that transports (jsonapi/, graphql/) and
 * http/ import. A transport holds an Engine, opens a Session per request, and speaks to nothing else.
 */
export { Engine, explainFailure, isContention, type EngineDependencies, type ServiceAccess } from './engine.js';
export { Session, type CreatedRecord, type RecordRead } from './session.js';
export type { IssuedToken } from './tokens.js';
export { recordKey, type IncludeResult } from './include.js';
export type { InputReader, LinkDraft, RecordDraft } from './input.js';
export type { Argument, ListDraft, PageDraft } from './list-input.js';
export type { CollectionAddress, PathStep, RecordAddress } from './locate.js';
export { defaultPageSize, maxPageSize, noIncludes, type IncludeTree, type Page, type ReadOptions } from './options.js';
export type { PermissionPlace } from './permissions.js';
export type { ListResult } from './queries.js';
export type { RecordPage, RecordResult } from './read.js';
export type { Linkage, NamedRelationship, RelationshipContent } from './relationships.js';
export type { Precondition } from './versions.js';
export type { Provenance, Transport } from './unit-of-work.js';
export { outboxTable } from './unit-of-work.js';
export type { StateAccess, StatePlace } from './state-access.js';
export { LockHeld, type StateLock } from './state-lock.js';
export type { StoredState, WorkspaceState } from './state.js';
export type { ServiceTransaction, ServiceWork } from './service-work.js';

export * from './attributes.js';
export * from './audit.js';
export * from './columns.js';
export * from './declaration.js';
export * from './registry.js';
export * from './relationships.js';
export * from './secrecy.js';
export * from './unmodeled.js';

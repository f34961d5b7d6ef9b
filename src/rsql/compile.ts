import type { ComparisonNode, ExpressionNode } from '@rsql/ast';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { badArgument } from '../errors.js';
import { columnOf, maySecret, toColumn, type Attribute, type Registry, type ResourceDeclaration } from '../model/index.js';
import type { Condition } from '../store/conditions.js';
import type { Dialect } from '../store/dialect.js';

export interface FilterContext {
  registry: Registry;
  dialect: Dialect;
  /** The query parameter the filter came from, for error messages. */
  parameter: string;
}

const idAttribute: Attribute = { kind: 'text', required: true, nullable: false, default: null, maxLength: 128, readOnly: true };

/**
 * Compiles an RSQL filter into a SQL condition on the rows of `resource` under `alias`. Selectors
 * are attribute names, `id`, or dotted paths through to-one relationships (`organization.name`).
 * Values are bound as parameters, never spliced into the SQL.
 */
export function compileFilter(node: ExpressionNode, resource: ResourceDeclaration, alias: string, context: FilterContext): Condition {
  if (node.type === 'LOGIC') {
    const left = compileFilter(node.left, resource, alias, context);
    const right = compileFilter(node.right, resource, alias, context);
    return node.operator === ';' || node.operator === 'and' ? sql<SqlBool>`(${left} and ${right})` : sql<SqlBool>`(${left} or ${right})`;
  }
  return compileComparison(node, node.left.selector.split('.'), resource, alias, context, 0);
}

function compileComparison(
  node: ComparisonNode,
  path: string[],
  resource: ResourceDeclaration,
  alias: string,
  context: FilterContext,
  depth: number,
): Condition {
  const [name, ...rest] = path as [string, ...string[]];
  if (rest.length > 0) {
    const relationship = context.registry.relationship(resource, name);
    if (relationship?.kind !== 'toOne') {
      throw badArgument(context.parameter, `${resource.type} has no to-one relationship ${name} to filter through.`);
    }
    // The related record of a to-one link lives in the same organization as the row, which the
    // outer query has already authorized, so no separate visibility check is needed here.
    const target = context.registry.target(relationship);
    const inner = `${alias}_${depth + 1}`;
    const condition = compileComparison(node, rest, target, inner, context, depth + 1);
    return sql<SqlBool>`exists (select 1 from ${sql.table(target.table)} as ${sql.id(inner)} where ${sql.ref(`${inner}.id`)} = ${sql.ref(`${alias}.${relationship.column}`)} and ${condition})`;
  }
  const attribute = name === 'id' ? idAttribute : context.registry.attribute(resource, name);
  if (attribute === undefined) {
    throw badArgument(context.parameter, `${resource.type} has no attribute ${name} to filter on.`);
  }
  // Matching a secret would reveal it a guess at a time.
  if (maySecret(attribute)) {
    throw badArgument(context.parameter, `${resource.type}.${name} may hold a secret and cannot be filtered on.`);
  }
  if (attribute.kind === 'textList') throw badArgument(context.parameter, `${resource.type}.${name} is a list and cannot be filtered on.`);
  const column = sql.ref(`${alias}.${name === 'id' ? 'id' : columnOf(name)}`);
  return compileOperator(node, name, attribute, column, context);
}

function compileOperator(
  node: ComparisonNode,
  name: string,
  attribute: Attribute,
  column: RawBuilder<unknown>,
  context: FilterContext,
): Condition {
  const operator = node.operator;
  const raw = node.right.value;
  const one = (): string => {
    if (Array.isArray(raw)) throw badArgument(context.parameter, `${operator} on ${name} takes one value, not a list.`);
    return raw;
  };
  const many = (): string[] => (Array.isArray(raw) ? raw : [raw]);
  const value = (text: string) => typedValue(text, name, attribute, context);
  const textual = attribute.kind === 'text' || attribute.kind === 'enum';

  switch (operator) {
    case '==':
    case '!=': {
      const text = one();
      const matches =
        textual && text.includes('*') ? patternMatch(column, text, context.dialect) : sql<SqlBool>`${column} = ${value(text)}`;
      // "Not equal" includes records where the attribute is null: they are not equal to the value.
      return operator === '==' ? matches : sql<SqlBool>`(${column} is null or not (${matches}))`;
    }
    case '=lt=':
    case '<':
      return sql<SqlBool>`${column} < ${value(ordered(one(), name, attribute, context))}`;
    case '=le=':
    case '<=':
      return sql<SqlBool>`${column} <= ${value(ordered(one(), name, attribute, context))}`;
    case '=gt=':
    case '>':
      return sql<SqlBool>`${column} > ${value(ordered(one(), name, attribute, context))}`;
    case '=ge=':
    case '>=':
      return sql<SqlBool>`${column} >= ${value(ordered(one(), name, attribute, context))}`;
    case '=in=':
      return sql<SqlBool>`${column} in (${sql.join(many().map(value))})`;
    case '=out=':
      return sql<SqlBool>`(${column} is null or ${column} not in (${sql.join(many().map(value))}))`;
    case '=ini=': {
      if (!textual) throw badArgument(context.parameter, `=ini= compares text; ${name} is not text.`);
      return sql<SqlBool>`lower(${column}) in (${sql.join(many().map((v) => v.toLowerCase()))})`;
    }
    case '=isnull=': {
      const text = one();
      if (text !== 'true' && text !== 'false') throw badArgument(context.parameter, `=isnull= takes true or false.`);
      return text === 'true' ? sql<SqlBool>`${column} is null` : sql<SqlBool>`${column} is not null`;
    }
    default:
      throw badArgument(
        context.parameter,
        `Unknown RSQL operator ${operator}; use ==, !=, =lt=, =le=, =gt=, =ge=, =in=, =out=, =isnull= or =ini=.`,
      );
  }
}

function ordered(text: string, name: string, attribute: Attribute, context: FilterContext): string {
  if (attribute.kind === 'boolean') throw badArgument(context.parameter, `${name} is a boolean and has no order.`);
  return text;
}

/** The filter value as the column stores it, so comparisons are exact on both stores. */
function typedValue(text: string, name: string, attribute: Attribute, context: FilterContext): unknown {
  switch (attribute.kind) {
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw badArgument(context.parameter, `${name} is a boolean: use true or false.`);
      return toColumn(attribute, text === 'true');
    case 'integer': {
      // Out of the attribute's range, no record can match, and PostgreSQL refuses to compare it at all.
      const value = /^-?\d+$/.test(text) ? Number(text) : NaN;
      if (!Number.isSafeInteger(value) || value < attribute.min || value > attribute.max) {
        throw badArgument(context.parameter, `${name} is an integer from ${attribute.min} to ${attribute.max}; ${text} is not.`);
      }
      return value;
    }
    case 'timestamp': {
      const time = Date.parse(text);
      if (Number.isNaN(time)) throw badArgument(context.parameter, `${name} is a date-time; ${text} is not.`);
      return new Date(time).toISOString();
    }
    default:
      return text;
  }
}

/**
 * `*` wildcards, case-sensitive on both stores: SQLite's LIKE ignores case and its pragma to change
 * that is compiled out of better-sqlite3, so SQLite uses GLOB; PostgreSQL uses LIKE on "C"-collated
 * text. Every other pattern character is escaped so it matches itself.
 */
function patternMatch(column: RawBuilder<unknown>, text: string, dialect: Dialect): Condition {
  if (dialect === 'sqlite') {
    const pattern = text.replace(/[[?]/g, (c) => `[${c}]`);
    return sql<SqlBool>`${column} glob ${pattern}`;
  }
  const pattern = text.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
  return sql<SqlBool>`${column} like ${pattern} escape '\\'`;
}

import type { ExpressionNode } from '@rsql/ast';
import { parse as parseRsql } from '@rsql/parser';
import { badArgument } from '../errors.js';

export type { ExpressionNode } from '@rsql/ast';

const maxFilterLength = 4096;
const maxFilterComparisons = 100;
const maxFilterNesting = 10;

/** Parses an RSQL expression within the limits that keep a filter cheap to compile and run. */
export function parseFilter(parameter: string, text: string): ExpressionNode {
  if (text.length > maxFilterLength) throw badArgument(parameter, `${parameter} is longer than ${maxFilterLength} characters.`);
  if (nestingDepth(text) > maxFilterNesting) {
    throw badArgument(parameter, `${parameter} nests parentheses deeper than ${maxFilterNesting} levels.`);
  }
  let expression: ExpressionNode;
  try {
    expression = parseRsql(text);
  } catch (error) {
    throw badArgument(parameter, `${parameter} is not valid RSQL: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (countComparisons(expression) > maxFilterComparisons) {
    throw badArgument(parameter, `${parameter} has more than ${maxFilterComparisons} comparisons.`);
  }
  return expression;
}
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quote: string | undefined;
  for (const char of text) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '(') {
      deepest = Math.max(deepest, ++depth);
    } else if (char === ')') {
      depth--;
    }
  }
  return deepest;
}

function countComparisons(node: ExpressionNode): number {
  return node.type === 'LOGIC' ? countComparisons(node.left) + countComparisons(node.right) : 1;
}

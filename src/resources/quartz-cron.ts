import { QuartzExpressionError, readQuartzExpression } from '../quartz/expression.js';

/**
 * What is wrong with a Quartz cron expression (the syntax Terrakube's scheduler takes and its web
 * UI writes), as a sentence; undefined when it is one. The reading itself is shared with the
 * computation of firing times (src/quartz/schedule.ts), so what passes here is what fires.
 */
export function quartzCronProblem(expression: string): string | undefined {
  try {
    readQuartzExpression(expression);
    return undefined;
  } catch (error) {
    if (error instanceof QuartzExpressionError) return error.message;
    throw error;
  }
}

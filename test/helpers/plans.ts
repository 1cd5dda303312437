/** A node of EXPLAIN's JSON plan and every node below it, depth first. */
export const planNodes = <N extends { Plans?: N[] }>(n: N): N[] => [n, ...(n.Plans ?? []).flatMap(planNodes)];

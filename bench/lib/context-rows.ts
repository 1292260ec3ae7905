// Names of the context bench's rows, shared by the job (which builds them) and the part (which
// lays them out): the product at each budget, the baseline beside it, and the ablation.

export const BUDGETS = [1500, 4000] as const;
export type Budget = (typeof BUDGETS)[number];

const budgetName = (b: Budget) => (b === 4000 ? "default budget (4,000)" : `${b.toLocaleString("en-US")}-token budget`);

/** The product's context assembly at a budget. */
export const assemblyRow = (b: Budget) => `edgemind context assembly, ${budgetName(b)}`;
/** The top-k search hits whole, k as large as the budget holds. */
export const baselineRow = (b: Budget) => `top-k search hits whole, k fitting the ${budgetName(b)}`;

/** Ablation rows start with this; each departs from the product's packing in one way. */
export const ABLATION = "ablation at 1,500: ";

/** What names a row searching with recall by meaning too. */
export const MEANING_MARK = ", with recall by meaning (";
/** A row of the product or the baseline with recall by meaning on, through the named embeddings model. */
export const withMeaning = (row: string, model: string) => `${row}${MEANING_MARK}${model})`;

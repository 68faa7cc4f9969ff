export {
  applyOverrides,
  columnsOf,
  effectivePlan,
  PLAN_COLUMN_NAMES,
  type PlanColumnName,
  type PlanColumns,
  type PlanJson,
  type PlanOverrides,
  planAnswer,
  planJson,
  readOverrides,
} from './effective-plan'
export {
  BUILT_IN_PLANS,
  DEFAULT_PLAN_NAME,
  PLAN_NAME_PATTERN,
  type PlanDefinition,
  planCatalog,
  planNames,
} from './plan-definition'
export { overridesOf, type PlanInput, planInputSchema, planNameSchema } from './plan-input'

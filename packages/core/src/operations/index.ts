export { type DaysToRollInput, daysToRoll, type RollupDay } from './days-to-roll'
export {
  ROLLUP_CURSOR_NAME,
  type RollUpDaysDeps,
  type RollUpDaysResult,
  type RollupStore,
  rollUpDays,
} from './roll-up-days'

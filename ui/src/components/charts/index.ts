export { CHART_HEIGHT, CHART_PROPS, ChartCard, STILL, type ChartTable } from './ChartCard';
export { formatDay, formatMonth, plural, sumOf } from './format';
export { StatCards } from './StatCards';

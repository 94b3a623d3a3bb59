/**
 * Types for the single-file build of ECharts the timeline loads (render/timeline-chart.ts): the
 * same functions as the package's index, whose types the package ships. One minified module
 * loads in about half the time of the package's index and its hundreds of files.
 */
declare module 'echarts/dist/echarts.esm.min' {
  export { init } from 'echarts';
}

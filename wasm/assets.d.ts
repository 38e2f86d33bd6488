/** Vite's `?url` imports: the URL of a file the build emits. */
declare module '*?url' {
  const url: string
  export default url
}

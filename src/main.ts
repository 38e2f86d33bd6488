import { createApp } from 'vue'
import './styles.css'
import App from './App.vue'
import { registerBackend } from './sw-register.ts'
import { splashError, splashStep } from './splash.ts'

// The splash (index.html) stays until App.vue has its first screen.
registerBackend({ onStep: splashStep })
  .then(() => createApp(App).mount('#app'))
  .catch((err: unknown) => splashError(err instanceof Error ? err.message : String(err)))

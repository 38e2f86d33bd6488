import { createApp } from 'vue'
import './styles.css'
import App from './App.vue'
import { registerBackend } from './sw-register.ts'

registerBackend()
  .then(() => createApp(App).mount('#app'))
  .catch((err: unknown) => {
    document.getElementById('app')!.textContent = err instanceof Error ? err.message : String(err)
  })

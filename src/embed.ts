/**
 * The embed page (embed.html): one web map with no app chrome, for an iframe in another site.
 * It registers no service worker of its own: where the app is installed on this origin its
 * worker answers (the device's maps, offline too); elsewhere the server that served the page
 * does (a team's Node host).
 */
import { createApp } from 'vue'
import './styles.css'
import WebmapEmbed from './components/webmap/WebmapEmbed.vue'

createApp(WebmapEmbed).mount('#embed')

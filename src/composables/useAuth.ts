/**
 * @module composables/useAuth
 * The signed-in person, shared by the whole app (module-level state).
 */
import { computed, shallowRef } from 'vue'
import * as api from '../api/auth.ts'

const user = shallowRef<api.CurrentUser | null>(null)

async function refresh(): Promise<api.CurrentUser> {
  user.value = await api.getCurrentUser()
  return user.value
}

export function useAuth() {
  return {
    user,
    isGuest: computed(() => !user.value || user.value.keyname === api.GUEST_KEYNAME),
    mustChangePassword: computed(() => !!user.value?.password_change_required),
    refresh,
    async logIn(login: string, password: string): Promise<void> {
      await api.login(login, password)
      await refresh()
    },
    async logOut(): Promise<void> {
      await api.logout()
      await refresh()
    },
    async setPassword(password: string): Promise<void> {
      if (!user.value) throw new Error('Nobody is logged in.')
      await api.changePassword(user.value.id, password)
      await refresh()
    },
  }
}

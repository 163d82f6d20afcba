# Mitsuba render-test scenes that dray does not pass yet (tests/CMakeLists.txt registers them as
# expected to fail). Remove a scene from the list when it passes; docs/mitsuba.md gives
# what each one lacks.
set(DRAY_MITSUBA_PENDING
)

# Writes what `PROGRAM ARGUMENT` prints to OUTPUT, failing the build when it fails.
#   cmake -DPROGRAM=BIN -DARGUMENT=--bash-completion -DOUTPUT=FILE [-DRUNNER=a,b] -P RunToFile.cmake
# RUNNER: what runs a cross-built BIN (its emulator and arguments, comma-separated).
string(REPLACE "," ";" runner "${RUNNER}")
execute_process(COMMAND ${runner} ${PROGRAM} ${ARGUMENT} OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUTPUT})
  message(FATAL_ERROR "${PROGRAM} ${ARGUMENT} failed (${rc})")
endif()

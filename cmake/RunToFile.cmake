# Writes what `PROGRAM ARGUMENT` prints to OUTPUT, failing the build when it fails.
#   cmake -DPROGRAM=BIN -DARGUMENT=--bash-completion -DOUTPUT=FILE -P RunToFile.cmake
execute_process(COMMAND ${PROGRAM} ${ARGUMENT} OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUTPUT})
  message(FATAL_ERROR "${PROGRAM} ${ARGUMENT} failed (${rc})")
endif()

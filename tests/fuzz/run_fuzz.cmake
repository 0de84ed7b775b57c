# FuzzSmoke: runs each fuzz target for SECONDS on a scratch copy of its seed corpus.
# -DFUZZ_DIR=<build-fuzz>/tests/fuzz -DCORPUS_DIR=tests/fuzz/corpus -DWORK_DIR=... -DSECONDS=20
foreach(target import config)
  if(NOT EXISTS "${FUZZ_DIR}/fuzz_${target}")
    message("no fuzz build in ${FUZZ_DIR} (run scripts/fuzz.sh first): skipped")
    return()
  endif()
endforeach()
foreach(target import config)
  file(MAKE_DIRECTORY "${WORK_DIR}/${target}")
  execute_process(
    COMMAND "${FUZZ_DIR}/fuzz_${target}" -max_total_time=${SECONDS} -timeout=10 -max_len=65536
            "${WORK_DIR}/${target}" "${CORPUS_DIR}/${target}"
    WORKING_DIRECTORY "${WORK_DIR}"  # where libFuzzer leaves a crashing input
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "fuzz_${target} found a failure (exit ${rc}); the input is in "
                        "${WORK_DIR}")
  endif()
endforeach()
message("fuzz targets ran ${SECONDS} s each without a failure")

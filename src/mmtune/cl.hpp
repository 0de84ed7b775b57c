// The OpenCL C++ bindings with the project's settings; include this instead of CL/opencl.hpp.
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
// 110, not 120: opencl.hpp 2.0.x lacks a helper it needs for minimum 120 with target 300.
#define CL_HPP_MINIMUM_OPENCL_VERSION 110
#endif
#ifndef CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_ENABLE_EXCEPTIONS
#endif
#include <CL/opencl.hpp>
